// Which requests the response cache may answer, and under what key.
import type { IncomingHttpHeaders } from 'node:http';
import { hasBody } from './headers.js';
import type { Exchange } from './exchange.js';

/**
 * Whether the response cache may answer the request: only GET and HEAD,
 * with no body, no range, no credentials of the client's own, no cookie
 * left once strip_cookies is applied, and no key the backend is sent (a key
 * is kept as an HMAC only, never in a cache key).
 */
export function cacheable(exchange: Exchange): boolean {
  if (exchange.cache === null) return false;
  const { method, headers, settings } = exchange;
  if ((method !== 'GET' && method !== 'HEAD') || exchange.upgrade !== null || hasBody(headers) || headers.range !== undefined) return false;
  if ((headers.authorization !== undefined && !exchange.keyInAuthorization) || exchange.upstreamCookie !== null) return false;
  return exchange.apiKey === null || !(settings.passApiKeyHeader || settings.passApiKeyQueryParam);
}

/**
 * Whether the request carries a header some backends read as its scheme,
 * host, path or method, none of them in the key: such a request is neither
 * answered from the cache nor kept in it, so that no client can have a
 * backend build another host's links (RFC 7239's Forwarded, a path prefix)
 * or act on another method into an answer every user then gets. The
 * gateway's own X-Forwarded-Host and -Proto are in the key. (Asked only
 * where the cache is in use: twelve lookups a request otherwise.)
 */
export function carriesUnkeyedClaims(headers: IncomingHttpHeaders): boolean {
  for (const name of UNKEYED_CLAIMS) if (headers[name] !== undefined) return true;
  return false;
}

const UNKEYED_CLAIMS = [
  'forwarded',
  'x-forwarded-prefix',
  'x-forwarded-server',
  'x-forwarded-ssl',
  'front-end-https',
  'x-url-scheme',
  'x-host',
  'x-original-url',
  'x-rewrite-url',
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
] as const;

/** Methods after whose success a cache must drop what it keeps for the target (RFC 9111 section 4.4), as Traffic Server does in front of API Umbrella. */
export function invalidates(method: string, status: number): boolean {
  return status >= 200 && status < 400 && method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && method !== 'TRACE';
}

/**
 * A cacheable request's key: the backend and where its requests go, the
 * client's scheme and Host (the backend gets them as X-Forwarded-*: an
 * https redirect, or a tenant's links, must not be served to another), and
 * the backend path with its query; not the user.
 */
export function cacheKeyOf(exchange: Exchange, target: string): string {
  return `${exchange.route.backend.cacheKeyPrefix}${exchange.protocol}://${exchange.host}\n${target}`;
}

/**
 * Whether the upstream's answer to the request is one the cache may keep:
 * HEAD and conditional requests are only answered, and a client's no-store
 * keeps its answer out (RFC 9111 section 5.2.1.5).
 */
export function mayFill(exchange: Exchange): boolean {
  const { headers } = exchange;
  if (exchange.method !== 'GET' || headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) return false;
  const control = headers['cache-control'];
  return control === undefined || !NO_STORE.test(control);
}

const NO_STORE = /(?:^|,)\s*no-store\s*(?:,|$)/i;
