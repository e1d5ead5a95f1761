// Secrets never reach the logs: credential headers and secret fields are
// censored by pino wherever a request, an error or a settings object puts
// them, and URLs have their api_key values replaced before they are logged or
// stored.

/** Where headers end up in a log line: a request's, and an error's own (undici and HTTP errors keep them). */
const HEADER_HOLDERS = ['req.headers', 'headers', 'err.headers'] as const;
const CREDENTIAL_HEADERS = ['["x-api-key"]', '["x-admin-auth-token"]', '.authorization', '.cookie', '["set-cookie"]'] as const;
/** Field names that hold a secret, at the top of a line and one level down ({ user: { api_key } }, { smtp: { password } }). */
const SECRET_FIELDS = ['password', 'api_key', 'admin_auth_token', 'secret_key', 'reset_password_token'] as const;
/** URLs kept for the reader, with only their api_key values censored: Fastify's log of a failed request, Node's Invalid URL error. */
const URL_FIELDS: ReadonlySet<string> = new Set(['req.url', 'url', 'err.input']);

const LOG_REDACTIONS: readonly string[] = [
  ...HEADER_HOLDERS.flatMap((holder) => CREDENTIAL_HEADERS.map((header) => `${holder}${header}`)),
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]),
  ...URL_FIELDS,
];

/** pino's `redact` option for every logger of Parasol. */
export const LOG_REDACT = {
  paths: [...LOG_REDACTIONS],
  censor: (value: unknown, path: readonly unknown[]): unknown => (isUrlField(path) ? redactUrl(value) : '[REDACTED]'),
};

// A wildcard's path may hold pino's own symbol keys, which join() cannot spell.
function isUrlField(path: readonly unknown[]): boolean {
  return URL_FIELDS.has(path.map(String).join('.'));
}

function redactUrl(value: unknown): unknown {
  return typeof value === 'string' ? redactApiKeys(value).replace(RESET_TOKEN_PARAM, '$1[REDACTED]').replace(VALIDATED_KEY, '$1[REDACTED]$2') : value;
}

/** The key API Umbrella's key check takes in its path (/api-umbrella/api-users/KEY/validate). */
const VALIDATED_KEY = /(\/api-users\/)[^/?#]*(\/validate)/gi;

/** The token of an admin's password link (/admin/password/edit?reset_password_token=…), which sets their password. */
const RESET_TOKEN_PARAM = /((?:^|[?&;])reset_password_token=)[^&#]*/gi;

/** A character of a parameter name, as itself or percent-encoded (either case: the pattern is /i). */
function nameCharacter(character: string): string {
  const code = `%${character.charCodeAt(0).toString(16)}`;
  const upper = `%${character.toUpperCase().charCodeAt(0).toString(16)}`;
  return `(?:${character}|${code}|${upper})`;
}

/**
 * An api_key parameter in any case, with any of its characters
 * percent-encoded ("api%5Fkey", as a query decoder reads it too), and an
 * array form ("api_key[]"): its value is a key all the same. The value runs
 * to the next "&", as the gateway reads a key (api-key.ts): a "#" or ";" in
 * it ends nothing, so no part of a key after one is kept.
 */
const API_KEY_PARAM = new RegExp(`((?:^|[?&;])${[...'api_key'].map(nameCharacter).join('')}(?:(?:\\[|%5b)[^=&#;]*)?=)[^&]*`, 'gi');
/** A cheap test before the pattern: no "api_key" and no escape, no key. */
const MAYBE_API_KEY = /api_key|%/i;

/** "/x?api_key=abc&y=1" → "/x?api_key=[REDACTED]&y=1". */
export function redactApiKeys(url: string): string {
  return MAYBE_API_KEY.test(url) ? url.replace(API_KEY_PARAM, '$1[REDACTED]') : url;
}

/** One parameter of a query ("name=value" or "name") that is an api_key, as API_KEY_PARAM names it. */
const API_KEY_PART = new RegExp(`^${[...'api_key'].map(nameCharacter).join('')}(?:(?:\\[|%5b)[^=&#;]*)?(?:=|$)`, 'i');

/** "y=1&api_key=[REDACTED]" → "y=1": a query without its api_key parameters, as API Umbrella shows a request's URL. */
export function withoutApiKeys(query: string): string {
  return MAYBE_API_KEY.test(query) ? query.split('&').filter((part) => !API_KEY_PART.test(part)).join('&') : query;
}
