// The contract between the proxy (and the admin login and signup forms) and
// the rate limiter. Callers never know which counter store is behind it.
import type { RateLimit } from '../api-backends/model.js';

export interface RateLimitRequest {
  /** Counters are separate per bucket: the backend's frontend_host or its rate_limit_bucket_name. */
  readonly bucket: string;
  /** The key's lookup prefix; null when the request has no user (limits by api_key then apply per IP). */
  readonly apiKeyPrefix: string | null;
  /** The client IP, resolved through trusted_proxies. */
  readonly ip: string;
  /** The effective limits; an empty list means unlimited. */
  readonly limits: readonly RateLimit[];
}

export interface RateLimitHeaders {
  readonly limit: number;
  readonly remaining: number;
}

export type RateLimitDecision =
  | { readonly allowed: true; readonly headers: RateLimitHeaders | null }
  /** retryAfterSeconds null: a limit of 0 refused the request, which no wait lets through (no Retry-After is sent). */
  | { readonly allowed: false; readonly retryAfterSeconds: number | null; readonly headers: RateLimitHeaders | null };

export interface RateLimiter {
  /**
   * Counts the request against every limit and answers whether it may pass; a
   * refused request is not counted. In-memory stores answer synchronously; a
   * shared store (Redis) may answer with a promise.
   */
  check(request: RateLimitRequest): RateLimitDecision | Promise<RateLimitDecision>;
  /** Answers as check() would, without counting (a login form asks before it verifies a password). */
  peek(request: RateLimitRequest): RateLimitDecision | Promise<RateLimitDecision>;
  /** Clears what the client has counted against each of the request's limits (a successful sign-in clears its account's failures). */
  forget(request: RateLimitRequest): void | Promise<void>;
}
