// Turns an admin's API backend input (API Umbrella's JSON shape) into a typed
// ApiBackendConfig, or field errors with API Umbrella's messages.
import { isIPv6 } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { isAddressOrRange } from '../lib/address-ranges.js';
import { isHeaderValue } from '../lib/header-value.js';
import { parseInstant } from '../lib/iso-instant.js';
import { pcreOnlySyntax } from '../lib/pcre-syntax.js';
import { blankToNull, booleanField, ErrorCollector, isBlank, isPlainObject, NOT_TEXT, requiredText, stringListField, textField, toBoolean, toInteger, type Parsed } from '../lib/validation-errors.js';
import {
  ANONYMOUS_RATE_LIMIT_BEHAVIORS,
  API_KEY_VERIFICATION_LEVELS,
  AUTHENTICATED_RATE_LIMIT_BEHAVIORS,
  BACKEND_PROTOCOLS,
  BALANCE_ALGORITHMS,
  EMPTY_SETTINGS,
  HTTP_METHODS,
  HTTPS_TRANSITION,
  MAX_SORT_ORDER,
  MIN_SORT_ORDER,
  RESERVED_PREFIXES,
  REWRITE_MATCHER_TYPES,
  type ApiBackendConfig,
  type ApiSettings,
  type ErrorDataValues,
  type BackendProtocol,
  type BalanceAlgorithm,
  type HeaderSetting,
  type ServerAddress,
  type SubSetting,
  type SubSettingMethod,
  type UrlMatch,
  type UrlRewrite,
} from './model.js';
import { PARASOL_COOKIES, setsParasolCookie } from '../gateway/cookie-stripping.js';
import { templateProblem } from '../gateway/header-templates.js';
import { rewriteError } from '../gateway/url-rewrites.js';
import { parseRateLimitSettings } from './rate-limits.js';
import { withUniqueIds } from './embedded-ids.js';
import { isUuid, sentIdOf, type Embedded } from '../lib/record-ids.js';

export const BLANK = "can't be blank";
const NOT_IN_LIST = 'is not included in the list';
const HOST_LABEL = '[a-z0-9]([a-z0-9-]*[a-z0-9])?';
const HOST_NAME = `${HOST_LABEL}(\\.${HOST_LABEL})*`;
/** An IPv6 address as a URL writes it; isHost checks what is inside the brackets. */
const IPV6_LITERAL = '\\[[0-9a-f:.]+\\]';
/**
 * Frontend and backend hosts, as API Umbrella takes them: a name or an IP
 * address, "*", "*.example.com" or ".example.com", with a port or without.
 */
export const FRONTEND_HOST = new RegExp(`^(\\*|(\\*\\.|\\.)?${HOST_NAME}|${IPV6_LITERAL})(:\\d{1,5})?$`, 'i');
const BACKEND_HOST = FRONTEND_HOST;
/** A server: a name or an IP address, no wildcard, no port (it has its own field). */
const SERVER_HOST = new RegExp(`^(${HOST_NAME}|${IPV6_LITERAL})$`, 'i');

export const HOST_FORMAT = 'must be in the format of "example.com"';
const TAKEN = 'has already been taken';
const MAX_SUB_SETTING_REGEX = 255;

/** Whether `host` fits `pattern` with a port, if any, from 1 to 65535, and an IPv6 address, if any, that is one. */
const MAX_HOST_LENGTH = 261;
const MAX_NAME_LENGTH = 255;

export function isHost(host: string, pattern: RegExp): boolean {
  // A DNS name is at most 253 characters; room for a port and brackets beyond that, no more.
  if (host.length > MAX_HOST_LENGTH || !pattern.test(host)) return false;
  const ipv6 = /^\[([^\]]*)\]/.exec(host)?.[1];
  if (ipv6 !== undefined && !isIPv6(ipv6)) return false;
  const port = /^(?:\[[^\]]*\]|[^:]*):(\d+)$/.exec(host)?.[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

/**
 * A host as API Umbrella takes it, "" when blank: a bare IPv6 address
 * ("::1") is written as a URL writes it ("[::1]"), which is how a request's
 * Host names it; whitespace around it is kept, so that the format check
 * refuses it as API Umbrella does (the admin form trims its fields).
 */
function hostOf(raw: unknown): string {
  if (isBlank(raw) || typeof raw !== 'string') return '';
  return isIPv6(raw) ? `[${raw}]` : raw;
}

export function isWildcardHost(frontendHost: string): boolean {
  return frontendHost === '*' || frontendHost.startsWith('*.') || frontendHost.startsWith('.');
}

export function parseApiBackend(raw: unknown): Parsed<ApiBackendConfig> {
  const errors = new ErrorCollector();
  const input = isPlainObject(raw) ? raw : {};
  const name = requiredText(input.name, 'name', errors, BLANK);
  // Names go into pages, flash cookies (a 400 KB name made a Set-Cookie no browser keeps) and mail: API Umbrella's column width.
  if (name !== null && name.length > MAX_NAME_LENGTH) errors.add('name', `is too long (maximum is ${MAX_NAME_LENGTH} characters)`);

  const frontendHost = hostOf(input.frontend_host).toLowerCase();
  if (frontendHost === '') errors.add('frontend_host', BLANK);
  else if (!isHost(frontendHost, FRONTEND_HOST)) errors.add('frontend_host', HOST_FORMAT);

  const backendHost = hostOf(input.backend_host);
  if (backendHost === '' && frontendHost !== '' && !isWildcardHost(frontendHost)) errors.add('backend_host', BLANK);
  else if (backendHost !== '' && !isHost(backendHost, BACKEND_HOST)) errors.add('backend_host', HOST_FORMAT);
  // The wildcard is filled with what the frontend's matched in the request's host (gateway/upstream-host.ts): without one, nothing would fill it.
  else if (isWildcardHost(backendHost) && isHost(frontendHost, FRONTEND_HOST) && !isWildcardHost(frontendHost)) {
    errors.add('backend_host', 'may start with "*" or "." only when the frontend host does');
  }

  const backendProtocol = oneOf(input.backend_protocol, BACKEND_PROTOCOLS, 'http', 'backend_protocol', errors);
  const balanceAlgorithm = oneOf(input.balance_algorithm, BALANCE_ALGORITHMS, 'least_conn', 'balance_algorithm', errors);
  const servers = parseServers(input.servers, errors);
  const urlMatches = parseUrlMatches(input.url_matches, errors);
  const settings = parseSettings(input.settings, 'settings', errors);
  const subSettings = parseSubSettings(input.sub_settings, errors);
  const rewrites = parseRewrites(input.rewrites, errors);

  if (!errors.isEmpty) return { ok: false, errors: errors.errors };
  return {
    ok: true,
    value: withUniqueIds({
      name: name!,
      frontend_host: frontendHost,
      backend_host: backendHost,
      backend_protocol: backendProtocol as BackendProtocol,
      balance_algorithm: balanceAlgorithm as BalanceAlgorithm,
      servers,
      url_matches: urlMatches,
      settings,
      sub_settings: subSettings,
      rewrites,
    }),
  };
}

/**
 * A backend's place in the order (API Umbrella's sort_order, a whole number
 * within PostgreSQL's integer range); null when not given.
 */
export function parseSortOrder(raw: unknown): Parsed<number | null> {
  const value = isPlainObject(raw) ? raw.sort_order : undefined;
  if (isBlank(value)) return { ok: true, value: null };
  const order = toInteger(value);
  if (order !== undefined && order >= MIN_SORT_ORDER && order <= MAX_SORT_ORDER) return { ok: true, value: order };
  return { ok: false, errors: { sort_order: [`must be a whole number from ${MIN_SORT_ORDER} to ${MAX_SORT_ORDER}`] } };
}

/** One of `allowed`, `fallback` when blank; another type (a number, a list) is refused, not read as blank. */
function oneOf<T extends string>(raw: unknown, allowed: readonly T[], fallback: T, field: string, errors: ErrorCollector): T {
  const value = textField(raw, field, errors, NOT_IN_LIST);
  if (value === null) return fallback;
  if (!allowed.includes(value as T)) errors.add(field, NOT_IN_LIST);
  return value as T;
}

function listOf(raw: unknown, field: string, errors: ErrorCollector): Record<string, unknown>[] {
  if (raw === undefined || raw === null) return [];
  // Form posts and some clients send {"0": {...}, "1": {...}} instead of a list.
  const items = Array.isArray(raw) ? raw : isPlainObject(raw) ? Object.values(raw) : null;
  if (items === null) {
    errors.add(field, 'must be a list');
    return [];
  }
  return items.map((item) => (isPlainObject(item) ? item : {}));
}

/** API Umbrella reports a backend without servers or URL prefixes on the record as a whole. */
const BASE = 'base';

function parseServers(raw: unknown, errors: ErrorCollector): Embedded<ServerAddress>[] {
  const items = listOf(raw, 'servers', errors);
  if (items.length === 0) errors.add(BASE, 'Must have at least one servers');
  const seen = new Set<string>();
  return items.map((item, index) => {
    const host = hostOf(item.host);
    const port = toInteger(item.port);
    if (host === '') errors.add(`servers[${index}].host`, BLANK);
    else if (!isHost(host, SERVER_HOST)) errors.add(`servers[${index}].host`, HOST_FORMAT);
    if (item.port === undefined || item.port === null || item.port === '') errors.add(`servers[${index}].port`, BLANK);
    else if (port === undefined || port < 1 || port > 65535) errors.add(`servers[${index}].port`, 'must be a port number from 1 to 65535');
    // As in API Umbrella: the same host and port twice is one server listed twice.
    const address = `${host.toLowerCase()} ${port}`;
    if (host !== '' && port !== undefined && seen.has(address)) errors.add(`servers[${index}].host`, TAKEN);
    seen.add(address);
    return { id: sentIdOf(item), host, port: port ?? 0 };
  });
}

function parseUrlMatches(raw: unknown, errors: ErrorCollector): Embedded<UrlMatch>[] {
  const items = listOf(raw, 'url_matches', errors);
  if (items.length === 0) errors.add(BASE, 'Must have at least one url_matches');
  const seen = new Set<string>();
  return items.map((item, index) => {
    const frontendPrefix = checkPrefix(item.frontend_prefix, `url_matches[${index}].frontend_prefix`, errors);
    const backendPrefix = checkPrefix(item.backend_prefix, `url_matches[${index}].backend_prefix`, errors);
    if (frontendPrefix !== '' && isReservedPrefix(frontendPrefix)) {
      errors.add(`url_matches[${index}].frontend_prefix`, 'is reserved for the gateway itself');
    }
    // Within one backend only, as in API Umbrella: another backend may use the same prefix (the first in the order gets its requests).
    if (frontendPrefix !== '' && seen.has(frontendPrefix)) errors.add(`url_matches[${index}].frontend_prefix`, TAKEN);
    seen.add(frontendPrefix);
    return { id: sentIdOf(item), frontend_prefix: frontendPrefix, backend_prefix: backendPrefix };
  });
}

function checkPrefix(raw: unknown, field: string, errors: ErrorCollector): string {
  const prefix = typeof raw === 'string' ? raw.trim() : '';
  if (prefix === '') errors.add(field, BLANK);
  else if (!prefix.startsWith('/')) errors.add(field, 'must start with "/"');
  return prefix;
}

export function isReservedPrefix(prefix: string): boolean {
  return RESERVED_PREFIXES.some((reserved) => prefix === reserved || prefix.startsWith(`${reserved}/`));
}

/** As API Umbrella checks them: a regex of at most 255 characters, each method and regex once (a second one would never match). */
function parseSubSettings(raw: unknown, errors: ErrorCollector): SubSetting[] {
  const seen = new Set<string>();
  return listOf(raw, 'sub_settings', errors).map((item, index) => {
    const at = `sub_settings[${index}]`;
    const method = httpMethod(item.http_method, `${at}.http_method`, errors);
    const regex = typeof item.regex === 'string' ? item.regex : '';
    if (regex === '') errors.add(`${at}.regex`, BLANK);
    else if (regex.length > MAX_SUB_SETTING_REGEX) errors.add(`${at}.regex`, `is too long (maximum is ${MAX_SUB_SETTING_REGEX} characters)`);
    else if (!isValidRegex(regex)) errors.add(`${at}.regex`, 'is not a valid regular expression');
    else checkPortableRegex(regex, `${at}.regex`, errors);
    const key = `${method} ${regex}`;
    if (regex !== '' && seen.has(key)) errors.add(`${at}.regex`, TAKEN);
    seen.add(key);
    return { id: sentIdOf(item), http_method: method, regex, settings: parseSettings(item.settings, `${at}.settings`, errors) };
  });
}

/** "any" or an upper-case method name, as sub-settings and rewrites store it. */
function httpMethod(raw: unknown, field: string, errors: ErrorCollector): SubSettingMethod {
  const method = blankToNull(raw) ?? '';
  const normalized = method.toLowerCase() === 'any' ? 'any' : method.toUpperCase();
  if (method === '') errors.add(field, BLANK);
  else if (!HTTP_METHODS.includes(normalized as SubSettingMethod)) errors.add(field, NOT_IN_LIST);
  return normalized as SubSettingMethod;
}

function parseRewrites(raw: unknown, errors: ErrorCollector): Embedded<UrlRewrite>[] {
  return listOf(raw, 'rewrites', errors).map((item, index) => {
    const at = `rewrites[${index}]`;
    const matcherType = blankToNull(item.matcher_type) ?? '';
    if (matcherType === '') errors.add(`${at}.matcher_type`, BLANK);
    else if (!REWRITE_MATCHER_TYPES.includes(matcherType as 'route')) errors.add(`${at}.matcher_type`, NOT_IN_LIST);
    const rewrite = {
      id: sentIdOf(item),
      matcher_type: matcherType as UrlRewrite['matcher_type'],
      http_method: httpMethod(item.http_method, `${at}.http_method`, errors),
      frontend_matcher: typeof item.frontend_matcher === 'string' ? item.frontend_matcher.trim() : '',
      backend_replacement: typeof item.backend_replacement === 'string' ? item.backend_replacement.trim() : '',
    };
    if (rewrite.frontend_matcher === '') errors.add(`${at}.frontend_matcher`, BLANK);
    if (rewrite.backend_replacement === '') errors.add(`${at}.backend_replacement`, BLANK);
    if (rewrite.frontend_matcher !== '' && rewrite.backend_replacement !== '' && REWRITE_MATCHER_TYPES.includes(rewrite.matcher_type)) checkRewriteCompiles(rewrite, at, errors);
    return rewrite;
  });
}

/** A rule the gateway could not compile would fail every publish: it is refused here, with the reason. */
function checkRewriteCompiles(rewrite: UrlRewrite, at: string, errors: ErrorCollector): void {
  const matcherError = rewriteError({ ...rewrite, backend_replacement: '/' });
  if (matcherError !== null) {
    const kind = rewrite.matcher_type === 'regex' ? 'regular expression' : 'route pattern';
    errors.add(`${at}.frontend_matcher`, `is not a valid ${kind} (${matcherError})`);
    return;
  }
  if (rewrite.matcher_type === 'regex') checkPortableRegex(rewrite.frontend_matcher, `${at}.frontend_matcher`, errors);
  const templateError = rewriteError(rewrite);
  if (templateError !== null) errors.add(`${at}.backend_replacement`, `is not a valid template (${templateError})`);
}

/** A regex copied from API Umbrella that JavaScript would read differently is refused rather than left never matching. */
function checkPortableRegex(source: string, field: string, errors: ErrorCollector): void {
  const problem = pcreOnlySyntax(source);
  if (problem !== null) errors.add(field, problem);
}

function isValidRegex(source: string): boolean {
  try {
    new RegExp(source, 'i');
    return true;
  } catch {
    return false;
  }
}

/** Visible ASCII but "#" (which would end the URL's query). */
const QUERY_STRING = /^[\x21-\x22\x24-\x7e]+$/;
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

export function parseSettings(raw: unknown, at: string, errors: ErrorCollector): ApiSettings {
  if (raw === undefined || raw === null) return EMPTY_SETTINGS;
  if (!isPlainObject(raw)) {
    errors.add(at, 'must be an object');
    return EMPTY_SETTINGS;
  }
  const rateLimits = parseRateLimitSettings(raw, at, errors);
  const appendQuery = textField(raw.append_query_string, `${at}.append_query_string`, errors)?.replace(/^[?&]+/, '') ?? null;
  // Saved as it is, it would go into every upstream request line, which then could not be sent.
  if (appendQuery !== null && !QUERY_STRING.test(appendQuery)) errors.add(`${at}.append_query_string`, 'must be a query string such as a=1&b=2: printable ASCII, without spaces or #');
  const basicAuth = textField(raw.http_basic_auth, `${at}.http_basic_auth`, errors);
  if (basicAuth !== null && CONTROL_CHARACTER.test(basicAuth)) errors.add(`${at}.http_basic_auth`, 'must not contain control characters');
  return {
    append_query_string: appendQuery,
    headers: parseHeaderSetting(raw, 'headers', `${at}.headers`, errors, { templates: true }),
    default_response_headers: parseHeaderSetting(raw, 'default_response_headers', `${at}.default_response_headers`, errors, { response: true }),
    override_response_headers: parseHeaderSetting(raw, 'override_response_headers', `${at}.override_response_headers`, errors, { response: true }),
    http_basic_auth: basicAuth,
    require_https: parseRequireHttps(raw.require_https, `${at}.require_https`, errors),
    require_https_transition_start_at: parseInstantField(raw.require_https_transition_start_at, `${at}.require_https_transition_start_at`, errors),
    disable_api_key: booleanField(raw.disable_api_key, `${at}.disable_api_key`, errors),
    pass_api_key_header: booleanField(raw.pass_api_key_header, `${at}.pass_api_key_header`, errors),
    pass_api_key_query_param: booleanField(raw.pass_api_key_query_param, `${at}.pass_api_key_query_param`, errors),
    required_roles: requiredRoles(raw, at, errors),
    required_roles_override: booleanField(raw.required_roles_override, `${at}.required_roles_override`, errors) ?? false,
    allowed_ips: parseAllowedIps(raw.allowed_ips, `${at}.allowed_ips`, errors),
    allowed_referers: stringListField(raw.allowed_referers, `${at}.allowed_referers`, errors),
    rate_limit_mode: rateLimits.rate_limit_mode,
    rate_limits: rateLimits.rate_limits,
    rate_limit_bucket_name: textField(raw.rate_limit_bucket_name, `${at}.rate_limit_bucket_name`, errors),
    anonymous_rate_limit_behavior: oneOrNull(raw.anonymous_rate_limit_behavior, ANONYMOUS_RATE_LIMIT_BEHAVIORS, `${at}.anonymous_rate_limit_behavior`, errors),
    authenticated_rate_limit_behavior: oneOrNull(raw.authenticated_rate_limit_behavior, AUTHENTICATED_RATE_LIMIT_BEHAVIORS, `${at}.authenticated_rate_limit_behavior`, errors),
    error_templates: parseErrorTemplates(raw.error_templates, `${at}.error_templates`, errors),
    error_data: parseErrorData(raw, at, errors),
    disable_analytics: booleanField(raw.disable_analytics, `${at}.disable_analytics`, errors),
    api_key_verification_level: oneOrNull(raw.api_key_verification_level, API_KEY_VERIFICATION_LEVELS, `${at}.api_key_verification_level`, errors),
    api_key_verification_transition_start_at: parseInstantField(raw.api_key_verification_transition_start_at, `${at}.api_key_verification_transition_start_at`, errors),
  };
}

/** required_roles, or API Umbrella's required_roles_string when it is not sent. */
function requiredRoles(raw: Record<string, unknown>, at: string, errors: ErrorCollector): string[] {
  const field = raw.required_roles === undefined || raw.required_roles === null ? 'required_roles_string' : 'required_roles';
  return stringListField(raw[field], `${at}.${field}`, errors);
}

/**
 * An instant (a transition's start, a key's expiry), as ISO 8601 in UTC;
 * null when blank. A date alone is its midnight, UTC. Also read as
 * API Umbrella's older exports write it, {"$date": …} with milliseconds
 * (also as {"$numberLong": "…"}) or ISO text, and as bare milliseconds from
 * 12 digits on (a number or a string of digits): 20261201 or 2027 is a
 * mistyped date, not a moment of 1970. For transitions, publishing sets or
 * clears it as the mode needs (transition-starts.ts); a draft keeps what it
 * was given, as API Umbrella's does.
 */
export function parseInstantField(raw: unknown, field: string, errors: ErrorCollector): string | null {
  const value = unwrapped(unwrapped(raw, '$date'), '$numberLong');
  if (isBlank(value)) return null;
  const bare = !isPlainObject(raw);
  const millis =
    typeof value === 'number' ? (bare && value < MIN_BARE_MILLIS ? null : value)
    : typeof value === 'string' && /^\s*\d{12,}\s*$/.test(value) ? Number(value)
    : parseInstant(value, 'start');
  // After year 9999 toISOString() writes what no parser reads back.
  if (millis !== null && millis < END_OF_YEAR_9999 && !Number.isNaN(new Date(millis).getTime())) return new Date(millis).toISOString();
  errors.add(field, 'must be a date and time such as 2026-01-31T00:00:00Z');
  return null;
}

/** 12 digits: 1973-03-03. */
const MIN_BARE_MILLIS = 100_000_000_000;
const END_OF_YEAR_9999 = Date.UTC(10_000, 0, 1);

/** MongoDB's extended JSON, as API Umbrella's older exports hold dates: {"$date": …}, {"$date": {"$numberLong": "…"}}. */
function unwrapped(value: unknown, key: '$date' | '$numberLong'): unknown {
  return isPlainObject(value) && key in value ? value[key] : value;
}

/** One of `values`, or null when blank; anything else (a number, a list) is an error, not "inherit". */
function oneOrNull<T extends string>(raw: unknown, values: readonly T[], field: string, errors: ErrorCollector): T | null {
  if (isBlank(raw)) return null;
  const value = typeof raw === 'string' ? raw.trim() : null;
  if (value !== null && values.includes(value as T)) return value as T;
  errors.add(field, NOT_IN_LIST);
  return null;
}

/**
 * API Umbrella's admin API and exports write require_https as a mode; read
 * only as a boolean, "required_return_error" would silently serve plain HTTP.
 */
const REQUIRE_HTTPS_MODES: Readonly<Record<string, boolean>> = { required_return_error: true, optional: false };

function parseRequireHttps(raw: unknown, field: string, errors: ErrorCollector): ApiSettings['require_https'] {
  if (raw === HTTPS_TRANSITION) return HTTPS_TRANSITION;
  if (typeof raw === 'string' && Object.hasOwn(REQUIRE_HTTPS_MODES, raw)) return REQUIRE_HTTPS_MODES[raw]!;
  const value = toBoolean(raw);
  if (value === null && raw !== null && raw !== undefined && raw !== '') errors.add(field, NOT_IN_LIST);
  return value;
}

/**
 * The headers a settings object sends: as API Umbrella reads them, the text
 * (`headers_string`, …) when there is one, else the list. The API answers
 * both, so a script that read a backend and changed the text sends back the
 * list as it was too: a line that states a header of that list keeps its id
 * (the admin's form sends the saved list beside its text for the same reason).
 */
function parseHeaderSetting(
  raw: Record<string, unknown>,
  field: 'headers' | 'default_response_headers' | 'override_response_headers',
  at: string,
  errors: ErrorCollector,
  options: HeaderOptions = {},
): Embedded<HeaderSetting>[] {
  const text = raw[`${field}_string`];
  if (typeof text === 'string') return withListedIds(parseHeaders(text, at, errors, options), raw[field]);
  if (text !== undefined && text !== null) errors.add(`${at}_string`, NOT_TEXT);
  return parseHeaders(raw[field], at, errors, options);
}

/** Each header takes the id of the first unused one of `listed` with the same name and value. */
function withListedIds(headers: Embedded<HeaderSetting>[], listed: unknown): Embedded<HeaderSetting>[] {
  const unused = (Array.isArray(listed) ? listed : []).filter((entry): entry is Record<string, unknown> => isPlainObject(entry) && isUuid(entry.id));
  const same = (entry: Record<string, unknown>, header: HeaderSetting) =>
    typeof entry.key === 'string' && entry.key.trim() === header.key && typeof entry.value === 'string' && entry.value.trim() === header.value;
  return headers.map((header) => {
    const index = unused.findIndex((entry) => same(entry, header));
    return index < 0 ? header : { ...header, id: unused.splice(index, 1)[0]!.id as string };
  });
}

interface HeaderOptions {
  /** Values holding "{{" are Mustache templates (request headers only, as in API Umbrella), refused when they cannot be parsed. */
  readonly templates?: boolean;
  /** Response headers: a Set-Cookie of one of Parasol's own cookies is refused (the gateway would drop it: a fixation of the admin's session or CSRF secret). */
  readonly response?: boolean;
}

/** Headers as [{key, value}] (or its form rows) or as "Key: value" lines, the admin form's textarea. */
export function parseHeaders(raw: unknown, at: string, errors: ErrorCollector, { templates = false, response = false }: HeaderOptions = {}): Embedded<HeaderSetting>[] {
  if (raw === undefined || raw === null || raw === '') return [];
  const entries: unknown[] =
    typeof raw === 'string'
      ? raw.split(/\r?\n/).filter((line) => line.trim() !== '').map((line) => {
          const colon = line.indexOf(':');
          return colon < 0 ? { key: line } : { key: line.slice(0, colon), value: line.slice(colon + 1) };
        })
      : listOf(raw, at, errors);
  const headers: Embedded<HeaderSetting>[] = [];
  entries.forEach((item, index) => {
    const entry = isPlainObject(item) ? item : {};
    const key = typeof entry.key === 'string' ? entry.key.trim() : '';
    const value = typeof entry.value === 'string' ? entry.value.trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) errors.add(`${at}[${index}].key`, 'must be a valid header name');
    else if (/[\r\n\0]/.test(value)) errors.add(`${at}[${index}].value`, 'must not contain line breaks');
    // Any other character would make each request or response fail when sent.
    else if (!isHeaderValue(value)) errors.add(`${at}[${index}].value`, 'must be printable ASCII or Latin-1 text');
    else if (response && key.toLowerCase() === 'set-cookie' && setsParasolCookie(value)) errors.add(`${at}[${index}].value`, PARASOL_COOKIE_REFUSED);
    else {
      const problem = templates ? templateProblem(value) : null;
      if (problem === null) headers.push({ id: sentIdOf(entry), key, value });
      else errors.add(`${at}[${index}].value`, problem);
    }
  });
  return headers;
}

const PARASOL_COOKIE_REFUSED = `must not set one of Parasol's own cookies (${[...PARASOL_COOKIES].join(', ')})`;

export function stringList(raw: unknown): string[] {
  const items = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw : [];
  return items.filter((item): item is string => typeof item === 'string').map((item) => item.trim()).filter((item) => item !== '');
}

/** Backends' and users' allowed_ips: each entry an address or a CIDR range, so the proxy never meets one it cannot evaluate. */
export function parseAllowedIps(raw: unknown, field: string, errors: ErrorCollector): string[] {
  const entries = stringListField(raw, field, errors);
  for (const entry of entries) {
    if (!isAddressOrRange(entry)) errors.add(field, `contains "${entry}", which is not an IP address or CIDR range (such as 203.0.113.7, 10.0.0.0/8 or 2001:db8::/32)`);
  }
  return entries;
}

const NOT_A_HASH = 'unexpected type (must be a hash)';

/** A template per format. Any text: templates never fail to render (src/gateway/error-templates.ts), so none is refused, as in API Umbrella. */
function parseErrorTemplates(raw: unknown, field: string, errors: ErrorCollector): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) {
    errors.add(field, NOT_A_HASH);
    return {};
  }
  const templates: Record<string, string> = {};
  for (const [format, template] of Object.entries(raw)) {
    if (typeof template === 'string') templates[format] = template;
    else errors.add(`${field}.${format}`, 'unexpected type (must be a string)');
  }
  return templates;
}

/**
 * error_data: per error code, a mapping of the values its templates show.
 * As in API Umbrella, error_data_yaml_strings (each code's mapping as YAML,
 * what its admin sends) wins over it when sent.
 */
function parseErrorData(raw: Record<string, unknown>, at: string, errors: ErrorCollector): Record<string, ErrorDataValues> {
  const yamlStrings = raw.error_data_yaml_strings;
  const data = yamlStrings === undefined || yamlStrings === null ? raw.error_data : fromYamlStrings(yamlStrings, `${at}.error_data_yaml_strings`, errors);
  if (data === undefined || data === null) return {};
  if (!isPlainObject(data)) {
    errors.add(`${at}.error_data`, NOT_A_HASH);
    return {};
  }
  const parsed: Record<string, ErrorDataValues> = {};
  for (const [code, values] of Object.entries(data)) {
    if (isPlainObject(values)) parsed[code] = scalarRecord(values);
    else errors.add(`${at}.error_data.${code}`, NOT_A_HASH);
  }
  return parsed;
}

/** Each code's YAML read; an empty one sets nothing. */
function fromYamlStrings(raw: unknown, field: string, errors: ErrorCollector): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (!isPlainObject(raw)) {
    errors.add(field, NOT_A_HASH);
    return data;
  }
  for (const [code, text] of Object.entries(raw)) {
    if (typeof text !== 'string') {
      errors.add(`${field}.${code}`, 'unexpected type (must be a string)');
      continue;
    }
    try {
      const value: unknown = parseYaml(text);
      if (value !== null) data[code] = value;
    } catch (error) {
      errors.add(`${field}.${code}`, `YAML parsing error: ${(error as Error).message.split('\n')[0]!.replace(/:$/, '')}`);
    }
  }
  return data;
}

/** Text values kept, with numbers (finite) and booleans as given; anything else (a list, a mapping, null) left out. */
function scalarRecord(raw: Record<string, unknown>): Record<string, string | number | boolean> {
  return Object.fromEntries(Object.entries(raw).filter((entry): entry is [string, string | number | boolean] => isScalar(entry[1])));
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}
