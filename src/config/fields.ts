// Typed config fields: each knows its default, how to parse a YAML value,
// how to parse an environment string, and how to say what it expected.
import { AddressRanges } from '../lib/address-ranges.js';
import { isEmailAddress } from '../lib/email-address.js';

export interface Field<T> {
  readonly kind: 'field';
  readonly defaultValue: T;
  readonly expected: string;
  /** Returns the parsed value, or undefined when the raw value does not fit. */
  readonly parse: (raw: unknown) => T | undefined;
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

function field<T>(defaultValue: T, expected: string, parse: (raw: unknown) => T | undefined, fromEnv: ((raw: string) => unknown) | null): Field<T> {
  return { kind: 'field', defaultValue, expected, parse, fromEnv };
}

const identity = (raw: string): string => raw;

export function str(defaultValue: string): Field<string> {
  return field(defaultValue, 'a string', (raw) => (typeof raw === 'string' ? raw : undefined), identity);
}

export function optionalStr(): Field<string | null> {
  return optionalText('a string or null', () => true);
}

export function optionalEmail(): Field<string | null> {
  return optionalText('an email address or null', isEmailAddress);
}

/** A sender as mail headers take it: an address, or a name and an address in angle brackets. */
export function optionalMailbox(): Field<string | null> {
  return optionalText('an email address, or "Name <address>", or null', (value) => {
    const address = /<([^<>]*)>\s*$/.exec(value)?.[1] ?? value;
    return !/[\r\n]/.test(value) && isEmailAddress(address.trim());
  });
}

/**
 * A URL the pages and mails link to, or build other URLs on: one that is not
 * absolute (or, with `orPath`, a path on this site) would make broken links
 * or fail only when the first page is rendered.
 */
export function optionalUrl(schemes: readonly string[], options: { orPath?: boolean } = {}): Field<string | null> {
  const names = schemes.length === 1 ? schemes[0]! : `${schemes.slice(0, -1).join(', ')} or ${schemes[schemes.length - 1]!}`;
  const expected = options.orPath === true ? `an ${names} URL, a path starting with /, or null` : `an ${names} URL or null`;
  return optionalText(expected, (value) => (options.orPath === true && /^\/(?!\/)\S*$/.test(value)) || isUrl(value, schemes));
}

function isUrl(value: string, schemes: readonly string[]): boolean {
  return URL.canParse(value) && schemes.includes(new URL(value).protocol.slice(0, -1));
}

/** null or a string that `accepts`; an empty environment variable is null. */
function optionalText(expected: string, accepts: (value: string) => boolean): Field<string | null> {
  return field<string | null>(null, expected, (raw) => (raw === null || (typeof raw === 'string' && accepts(raw)) ? raw : undefined), (raw) => (raw === '' ? null : raw));
}

export function oneOf<T extends string>(defaultValue: T, allowed: readonly T[]): Field<T> {
  return field(defaultValue, `one of ${allowed.join(', ')}`, (raw) => (allowed.includes(raw as T) ? (raw as T) : undefined), identity);
}

export function int(defaultValue: number, min: number, max: number): Field<number> {
  return field(
    defaultValue,
    `an integer from ${min} to ${max}`,
    (raw) => (typeof raw === 'number' && Number.isInteger(raw) && raw >= min && raw <= max ? raw : undefined),
    (raw) => (/^-?\d+$/.test(raw.trim()) ? Number(raw) : raw),
  );
}

/** null, or an integer as int() takes it; an empty environment variable is null. */
export function optionalInt(min: number, max: number): Field<number | null> {
  // Only its parsing is used; its default is not.
  const plain = int(min, min, max);
  return field<number | null>(
    null,
    `an integer from ${min} to ${max}, or null`,
    (raw) => (raw === null ? null : plain.parse(raw)),
    (raw) => (raw.trim() === '' ? null : plain.fromEnv!(raw)),
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
  const plain = strList(defaultValue);
  return field<readonly string[]>(
    defaultValue,
    'a list of IP addresses and CIDR ranges',
    (raw) => {
      const list = plain.parse(raw);
      return list !== undefined && list.every((entry) => AddressRanges.compile([entry]) !== null) ? list : undefined;
    },
    plain.fromEnv,
  );
}

/** A structured value with its own parser; not settable from the environment. */
export function structured<T>(defaultValue: T, expected: string, parse: (raw: unknown) => T | undefined): Field<T> {
  return field(defaultValue, expected, parse, null);
}
