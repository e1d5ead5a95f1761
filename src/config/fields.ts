// Typed config fields: each knows its default, how to parse a YAML value,
// how to parse an environment string, and how to say what it expected.
import { isIP } from 'node:net';
import { AddressRanges } from '../lib/address-ranges.js';
import { isEmailAddress, mailboxAddress } from '../lib/email-address.js';
import { parseTimeZone, type TimeZoneName } from '../lib/time-zone.js';
import { isPlainObject } from '../lib/validation-errors.js';
import { describe, didYouMean, namesSpelledLike, orList } from './messages.js';

/**
 * Why a structured value was refused, when the field's `expected` for the
 * whole of it would leave the operator searching: `at` continues the key's
 * path to the fault ("[1].limit_by"), `reason` is what follows it.
 */
export class Refusal {
  constructor(
    readonly at: string,
    readonly reason: string,
  ) {}
}

export interface Field<T> {
  readonly kind: 'field';
  readonly defaultValue: T;
  readonly expected: string;
  /** Returns the parsed value, or undefined when the raw value does not fit `expected`, or a Refusal that says where inside it. */
  readonly parse: (raw: unknown) => T | undefined | Refusal;
  /** Environment variables only carry strings; null when the field has no env form. */
  readonly fromEnv: ((raw: string) => unknown) | null;
}

export type Schema = { readonly [key: string]: Field<unknown> | Schema };

export type ConfigOf<S extends Schema> = {
  readonly [K in keyof S]: S[K] extends Field<infer T> ? T : S[K] extends Schema ? ConfigOf<S[K]> : never;
};

export function isField(node: Field<unknown> | Schema): node is Field<unknown> {
  return (node as Field<unknown>).kind === 'field';
}

function field<T>(defaultValue: T, expected: string, parse: (raw: unknown) => T | undefined | Refusal, fromEnv: ((raw: string) => unknown) | null): Field<T> {
  // A list key with nothing after it (`trusted_proxies:`, its entries commented out) is YAML's null: no entries.
  const parseList = Array.isArray(defaultValue) ? (raw: unknown) => parse(raw === null ? [] : raw) : parse;
  return { kind: 'field', defaultValue, expected, parse: parseList, fromEnv };
}

const identity = (raw: string): string => raw;

export function str(defaultValue: string): Field<string> {
  return field(defaultValue, 'a string', (raw) => (typeof raw === 'string' ? raw : undefined), identity);
}

export function optionalStr(): Field<string | null> {
  return optionalText('a string or null', () => true);
}

/** null or a host name or IP address: not empty nor spaced, which a connect or listen would take as another host (localhost, every interface). */
export function optionalHost(): Field<string | null> {
  return optionalText('a host name or IP address, or null', (value) => /^\S+$/.test(value));
}

export function optionalEmail(): Field<string | null> {
  return optionalText('an email address or null', isEmailAddress);
}

/** A sender as mail headers take it: an address, or a name and an address in angle brackets. */
export function optionalMailbox(): Field<string | null> {
  return optionalText('an email address, or "Name <address>", or null', (value) => {
    return !/[\r\n]/.test(value) && isEmailAddress(mailboxAddress(value));
  });
}

/**
 * A URL the pages and mails link to, or build other URLs on: one that is not
 * absolute (or, with `orPath`, a path on this site) would make broken links
 * or fail only when the first page is rendered.
 */
export function optionalUrl(schemes: readonly string[], options: { orPath?: boolean } = {}): Field<string | null> {
  const names = orList(schemes);
  const expected = options.orPath === true ? `an ${names} URL, a path starting with /, or null` : `an ${names} URL or null`;
  return optionalText(expected, (value) => (options.orPath === true && /^\/(?!\/)\S*$/.test(value)) || isUrl(value, schemes));
}

function isUrl(value: string, schemes: readonly string[]): boolean {
  return URL.canParse(value) && schemes.includes(new URL(value).protocol.slice(0, -1));
}

/** null or a string that `accepts` */
function optionalText(expected: string, accepts: (value: string) => boolean): Field<string | null> {
  return field<string | null>(null, expected, (raw) => (raw === null || (typeof raw === 'string' && accepts(raw)) ? raw : undefined), identity);
}

/** A path to a file: an empty one would resolve to the working directory, which is never meant. */
export function filePath(): Field<string> {
  // Only its parsing is used (in list entries, which must give it); its default is not.
  return nonEmptyString('', 'a file path');
}

export function directoryPath(defaultValue: string): Field<string> {
  return nonEmptyString(defaultValue, 'a directory path');
}

/** A host name: labels of letters, digits and hyphens, 253 characters at most. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

/** null or a host name without a port */
export function optionalHostname(): Field<string | null> {
  return optionalText('a host name (without a port) or null', (value) => HOST_NAME.test(value));
}

/** null or an HTTP header name (RFC 9110's token) */
export function optionalHeaderName(): Field<string | null> {
  return optionalText('an HTTP header name or null', (value) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value));
}

/** null or a Strict-Transport-Security value ("max-age=31536000; includeSubDomains") */
export function optionalStrictTransportSecurity(): Field<string | null> {
  return optionalText('a Strict-Transport-Security value such as "max-age=31536000; includeSubDomains", or null', (value) =>
    /^max-age=\d+(\s*;\s*(includeSubDomains|preload))*$/i.test(value.trim()),
  );
}

/** null or a file path */
export function optionalFilePath(): Field<string | null> {
  return optionalText('a file path or null', (value) => value !== '');
}

function nonEmptyString(defaultValue: string, expected: string): Field<string> {
  return field(defaultValue, expected, (raw) => (typeof raw === 'string' && raw !== '' ? raw : undefined), identity);
}

/** An IANA time zone as Intl knows it, in any case or by an alias (US/Mountain), kept by its IANA name (America/Denver; Asia/Kolkata, which ICU calls Asia/Calcutta). */
export function timeZone(defaultValue: TimeZoneName): Field<TimeZoneName> {
  return field(defaultValue, 'an IANA time zone name, such as UTC or America/Denver', (raw) => (typeof raw === 'string' ? (parseTimeZone(raw) ?? undefined) : undefined), identity);
}

/** One of `allowed`; an `aliases` value (another spelling of one) is taken as that one. */
export function oneOf<T extends string>(defaultValue: T, allowed: readonly T[], aliases: Readonly<Record<string, T>> = {}): Field<T> {
  const valueOf = (raw: unknown): T | undefined => {
    const value = typeof raw === 'string' && Object.hasOwn(aliases, raw) ? aliases[raw] : raw;
    return allowed.includes(value as T) ? (value as T) : undefined;
  };
  return field(defaultValue, orList(allowed), valueOf, identity);
}

/** null or one of `allowed` */
export function optionalOneOf<T extends string>(allowed: readonly T[]): Field<T | null> {
  return field<T | null>(null, orList([...allowed, 'null']), (raw) => (raw === null || allowed.includes(raw as T) ? (raw as T | null) : undefined), identity);
}

/** An integer from min to max (no bound above when max is Infinity), in `unit` when given. */
export function int(defaultValue: number, min: number, max: number, unit?: string): Field<number> {
  const range = max === Infinity ? `of ${min} or more` : `from ${min} to ${max}`;
  return field(
    defaultValue,
    `an integer ${range}${unit === undefined ? '' : ` (${unit})`}`,
    (raw) => (typeof raw === 'number' && Number.isInteger(raw) && raw >= min && raw <= max ? raw : undefined),
    (raw) => (/^-?\d+$/.test(raw.trim()) ? Number(raw) : raw),
  );
}

/** null, or an integer as int() takes it */
export function optionalInt(min: number, max: number): Field<number | null> {
  // Only its parsing is used; its default is not.
  const plain = int(min, min, max);
  return field<number | null>(
    null,
    `an integer from ${min} to ${max}, or null`,
    (raw) => (raw === null ? null : plain.parse(raw)),
    plain.fromEnv,
  );
}

export function bool(defaultValue: boolean): Field<boolean> {
  return field(defaultValue, 'true or false', (raw) => (typeof raw === 'boolean' ? raw : undefined), (raw) => {
    const lower = raw.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(lower)) return true;
    if (['false', '0', 'no', 'off'].includes(lower)) return false;
    return raw;
  });
}

/** A list of strings; from the environment as a comma-separated list. */
export function strList(defaultValue: readonly string[]): Field<readonly string[]> {
  return field<readonly string[]>(
    defaultValue,
    'a list of strings',
    (raw) => (Array.isArray(raw) && raw.every((item) => typeof item === 'string') ? raw : undefined),
    (raw) => raw.split(',').map((item) => item.trim()).filter((item) => item !== ''),
  );
}

/** IP addresses and CIDR ranges; from the environment as a comma-separated list. */
export function addressList(defaultValue: readonly string[]): Field<readonly string[]> {
  return checkedList(defaultValue, 'a list of IP addresses and CIDR ranges', (entry) => (AddressRanges.compile([entry]) === null ? null : entry));
}

/**
 * Host names or IP addresses (IPv6 in brackets or not), without a port or a
 * wildcard; lowercased, IPv6 as a URL writes it ("[::1]"), so that each
 * compares with a request's Host without its port. From the environment as a
 * comma-separated list.
 */
export function hostList(defaultValue: readonly string[]): Field<readonly string[]> {
  return checkedList(defaultValue, 'a list of host names or IP addresses (without a port or wildcard)', hostOf);
}

/** Strings each of which `entryOf` takes (as it answers it, null: refused); from the environment as a comma-separated list. */
function checkedList(defaultValue: readonly string[], expected: string, entryOf: (entry: string) => string | null): Field<readonly string[]> {
  const plain = strList(defaultValue);
  return field<readonly string[]>(
    defaultValue,
    expected,
    (raw) => {
      const list = plain.parse(raw);
      if (!Array.isArray(list)) return undefined;
      const entries = list.map(entryOf);
      return entries.every((entry): entry is string => entry !== null) ? entries : undefined;
    },
    plain.fromEnv,
  );
}

/** A host name or address as a Host header names it without its port, lowercased; null for anything else. */
function hostOf(entry: string): string | null {
  const lower = entry.trim().toLowerCase();
  if (HOST_NAME.test(lower)) return lower;
  const bare = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return isIP(bare) === 6 ? new URL(`http://[${bare}]/`).hostname : null;
}

/** A structured value with its own parser; not settable from the environment. */
export function structured<T>(defaultValue: T, expected: string, parse: (raw: unknown) => T | undefined | Refusal): Field<T> {
  return field(defaultValue, expected, parse, null);
}

/** The keys of each entry of a list of mappings, each with the field that parses its value. */
export type EntryFields = { readonly [key: string]: Field<unknown> };

export type EntryOf<F extends EntryFields> = { readonly [K in keyof F]: F[K] extends Field<infer T> ? T : never };

export interface EntryRules<F extends EntryFields> {
  /** Keys an entry may leave out, which then take their field's default; every other key must be given. */
  readonly optional?: readonly (keyof F & string)[];
  /** API Umbrella's names for a key (its config files say limit_to): taken as that key, so its operators' files keep working. */
  readonly aliases?: Readonly<Record<string, keyof F & string>>;
  /**
   * Keys an entry may carry that mean nothing to Parasol (API Umbrella's
   * `distributed`): checked with their field, so a wrong value is still
   * refused, then left out of the entry.
   */
  readonly ignored?: EntryFields;
  /** A rule over the whole list (say, no two entries alike): what breaks it, or null. */
  readonly check?: (entries: readonly EntryOf<F>[]) => Refusal | null;
}

/**
 * A list of mappings with exactly the keys of `fields`, as the file gives it
 * (not settable from the environment). A refusal names the entry and its key
 * ("[1].limit_by"): an unknown key would otherwise be dropped in silence,
 * taking its setting with it.
 */
export function mappingList<F extends EntryFields>(defaultValue: readonly EntryOf<F>[], expected: string, fields: F, rules: EntryRules<F> = {}): Field<readonly EntryOf<F>[]> {
  return structured<readonly EntryOf<F>[]>(defaultValue, expected, (raw) => {
    if (!Array.isArray(raw)) return undefined;
    const entries: EntryOf<F>[] = [];
    for (const [index, item] of raw.entries()) {
      const entry = parseEntry(item, `[${index}]`, fields, rules);
      if (entry instanceof Refusal) return entry;
      entries.push(entry);
    }
    return rules.check?.(entries) ?? entries;
  });
}

function parseEntry<F extends EntryFields>(raw: unknown, at: string, fields: F, rules: EntryRules<F>): EntryOf<F> | Refusal {
  const names = Object.keys(fields);
  if (!isPlainObject(raw)) return new Refusal(at, `expected a mapping {${names.join(', ')}}, got ${describe(raw)}`);
  const item = withAliasesRenamed(raw, at, rules.aliases ?? {});
  if (item instanceof Refusal) return item;
  const ignored = rules.ignored ?? {};
  const unknown = Object.keys(item).find((key) => !Object.hasOwn(fields, key) && !Object.hasOwn(ignored, key));
  if (unknown !== undefined) return new Refusal(at, `unknown key "${unknown}"${didYouMean(namesSpelledLike(unknown, names))}`);
  for (const [key, keyField] of Object.entries(ignored)) {
    const value = parseEntryValue(keyField, item[key], `${at}.${key}`, true);
    if (value instanceof Refusal) return value;
  }
  const entry: Record<string, unknown> = {};
  for (const [key, keyField] of Object.entries(fields)) {
    const value = parseEntryValue(keyField, item[key], `${at}.${key}`, rules.optional?.includes(key) === true);
    if (value instanceof Refusal) return value;
    entry[key] = value;
  }
  return entry as EntryOf<F>;
}

/** The entry with each alias under its key's own name; both given is a Refusal. */
function withAliasesRenamed(raw: Record<string, unknown>, at: string, aliases: Readonly<Record<string, string>>): Record<string, unknown> | Refusal {
  const renamed: Record<string, unknown> = { ...raw };
  for (const [alias, key] of Object.entries(aliases)) {
    if (!Object.hasOwn(raw, alias)) continue;
    if (Object.hasOwn(raw, key)) return new Refusal(at, `both "${key}" and "${alias}" (the same key); give one`);
    renamed[key] = raw[alias];
    delete renamed[alias];
  }
  return renamed;
}

/** The value of one key of an entry (`at`: "[1].limit"), or the Refusal that names it. */
function parseEntryValue(keyField: Field<unknown>, value: unknown, at: string, optional: boolean): unknown {
  if (value === undefined) return optional ? keyField.defaultValue : new Refusal(at, `missing (expected ${keyField.expected})`);
  const parsed = keyField.parse(value);
  if (parsed instanceof Refusal) return new Refusal(at + parsed.at, parsed.reason);
  return parsed === undefined ? new Refusal(at, `expected ${keyField.expected}, got ${describe(value)}`) : parsed;
}
