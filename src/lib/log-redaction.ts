// Secrets never reach the logs: credential headers are censored by pino, and
// URLs have their api_key values replaced before they are logged or stored.

export const LOG_REDACTIONS = [
  'req.headers["x-api-key"]',
  'req.headers["x-admin-auth-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers["x-admin-auth-token"]',
  'headers.authorization',
  'headers.cookie',
  'password',
  'api_key',
  'admin_auth_token',
] as const;

const API_KEY_PARAM = /((?:^|[?&;])api_key=)[^&#;]*/gi;

/** "/x?api_key=abc&y=1" → "/x?api_key=[REDACTED]&y=1". */
export function redactApiKeys(url: string): string {
  return url.includes('api_key') ? url.replace(API_KEY_PARAM, '$1[REDACTED]') : url;
}
