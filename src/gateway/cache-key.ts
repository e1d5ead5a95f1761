// Which requests the response cache may answer, and under what key.
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
 * A cacheable request's key: the backend and where its requests go, the
 * client's scheme and Host (the backend gets them as X-Forwarded-*: an
 * https redirect, or a tenant's links, must not be served to another), and
 * the backend path with its query; not the user.
 */
export function cacheKeyOf(exchange: Exchange, target: string): string {
  return `${exchange.route.backend.cacheKeyPrefix}${exchange.protocol}://${exchange.host}\n${target}`;
}

/** Whether the upstream's answer to the request is one the cache may keep: HEAD and conditional requests are only answered. */
export function mayFill(exchange: Exchange): boolean {
  const { headers } = exchange;
  return exchange.method === 'GET' && headers['if-none-match'] === undefined && headers['if-modified-since'] === undefined;
}
