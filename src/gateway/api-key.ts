// Where a request's API key comes from: the first non-empty of the
// X-Api-Key header, an api_key query parameter, the HTTP Basic username.
import type { IncomingHttpHeaders } from 'node:http';
import { firstQueryValue } from './request-url.js';

export type KeySource = 'header' | 'query' | 'basic_auth';

export interface PresentedKey {
  readonly key: string;
  readonly source: KeySource;
}

export function extractApiKey(headers: IncomingHttpHeaders, query: string): PresentedKey | null {
  const header = headers['x-api-key'];
  if (header !== undefined && header !== '') return { key: header as string, source: 'header' };
  const fromQuery = firstQueryValue(query, 'api_key');
  if (fromQuery !== null) return { key: fromQuery, source: 'query' };
  const authorization = headers.authorization;
  const fromBasic = authorization === undefined ? null : basicAuthUsername(authorization);
  return fromBasic === null ? null : { key: fromBasic, source: 'basic_auth' };
}

/** As API Umbrella: a client's own Basic auth passes upstream, unless its username is the API key. */
export function authorizationCarries(authorization: string | undefined, key: string): boolean {
  return authorization !== undefined && basicAuthUsername(authorization) === key;
}

const BASIC_CREDENTIALS = /^\s*basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The username of `Authorization: Basic base64(user:password)`. null for any
 * other scheme, broken base64, binary or an empty username: such a request
 * presents no key.
 */
export function basicAuthUsername(authorization: string): string | null {
  const match = BASIC_CREDENTIALS.exec(authorization);
  if (match === null || match[1]!.length % 4 === 1) return null;
  let decoded: string;
  try {
    decoded = strictUtf8.decode(Buffer.from(match[1]!, 'base64'));
  } catch {
    return null;
  }
  if (CONTROL_CHARACTER.test(decoded)) return null;
  const colon = decoded.indexOf(':');
  const username = colon < 0 ? decoded : decoded.slice(0, colon);
  return username === '' ? null : username;
}
