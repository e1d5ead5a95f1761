// The one RateLimiter of the code base (proxy, admin login, signup): every
// limit is a sliding-window estimate over counters in a CounterStore, with
// time from the injectable clock.
import type { RateLimit } from '../api-backends/model.js';
import type { Clock } from '../lib/clock.js';
import type { Awaitable, CounterStore } from './counter-store.js';
import type { RateLimitDecision, RateLimitHeaders, RateLimitRequest, RateLimiter } from './limiter.js';
import { MemoryCounterStore } from './memory-store.js';
import { estimateCount, msUntilBelow, windowIndex } from './sliding-window.js';

const UNLIMITED: RateLimitDecision = Object.freeze({ allowed: true, headers: null });

/** Where one limit stands for one request: the counters it reads and how far its current window has run. */
interface LimitWindow {
  readonly limit: RateLimit;
  readonly currentKey: string;
  readonly previousKey: string;
  /** The current window's counter is needed through the next window, as that one's previous. */
  readonly currentExpiresAt: number;
  readonly elapsed: number;
}

export class SlidingWindowLimiter implements RateLimiter {
  constructor(
    private readonly store: CounterStore,
    private readonly clock: Clock,
  ) {}

  check(request: RateLimitRequest): Awaitable<RateLimitDecision> {
    return this.decide(request, true);
  }

  peek(request: RateLimitRequest): Awaitable<RateLimitDecision> {
    return this.decide(request, false);
  }

  private decide(request: RateLimitRequest, counting: boolean): Awaitable<RateLimitDecision> {
    if (request.limits.length === 0) return UNLIMITED;
    const now = this.clock.now();
    const windows = request.limits.map((limit) => locate(limit, request, now));
    const counts: Awaitable<number>[] = [];
    for (const window of windows) {
      counts.push(this.store.get(window.currentKey, window.currentExpiresAt));
      counts.push(this.store.get(window.previousKey, window.currentExpiresAt - window.limit.duration));
    }
    return whenAll(counts, (values) => {
      const decision = judge(windows, values);
      // A refused request counts against no limit, so a client that keeps retrying is not locked out for longer.
      if (!counting || !decision.allowed) return decision;
      return whenAll(
        windows.map((window) => this.store.increment(window.currentKey, window.currentExpiresAt)),
        () => decision,
      );
    });
  }
}

/** The limiter a single process uses: counters in memory. */
export function createMemoryRateLimiter(clock: Clock): SlidingWindowLimiter {
  return new SlidingWindowLimiter(new MemoryCounterStore(clock), clock);
}

function locate(limit: RateLimit, request: RateLimitRequest, now: number): LimitWindow {
  const { duration } = limit;
  const index = windowIndex(now, duration);
  // Limits by api_key fall back to the client IP when the request has no user; the tag keeps the two apart.
  const subject = limit.limit_by === 'api_key' && request.apiKeyPrefix !== null ? `k:${request.apiKeyPrefix}` : `i:${request.ip}`;
  const counter = `${duration}|${limit.limit_by}|${request.bucket}|${subject}`;
  return {
    limit,
    currentKey: `${index}|${counter}`,
    previousKey: `${index - 1}|${counter}`,
    currentExpiresAt: (index + 2) * duration,
    elapsed: now - index * duration,
  };
}

/** `counts` holds each window's current and previous count, in pairs. */
function judge(windows: readonly LimitWindow[], counts: readonly number[]): RateLimitDecision {
  let refused = false;
  let waitMs = 0;
  let shown: { limit: number; estimate: number } | null = null;
  for (let at = 0; at < windows.length; at += 1) {
    const { limit, elapsed } = windows[at]!;
    const current = counts[2 * at]!;
    const previous = counts[2 * at + 1]!;
    const estimate = estimateCount(current, previous, elapsed, limit.duration);
    if (estimate >= limit.limit) {
      refused = true;
      waitMs = Math.max(waitMs, msUntilBelow(limit.limit, current, previous, elapsed, limit.duration));
    }
    if (limit.response_headers && shown === null) shown = { limit: limit.limit, estimate };
  }
  const headers = shown === null ? null : remainingAfter(shown, refused);
  if (!refused) return { allowed: true, headers };
  return { allowed: false, retryAfterSeconds: Math.ceil(waitMs / 1000), headers };
}

/** A passing request uses one of what remains; a refused one uses none. Never negative. */
function remainingAfter({ limit, estimate }: { limit: number; estimate: number }, refused: boolean): RateLimitHeaders {
  return { limit, remaining: Math.max(0, limit - estimate - (refused ? 0 : 1)) };
}

/** Calls `then` at once when every value is already there (the in-memory store), or once the promises settle. */
function whenAll<T, R>(values: readonly Awaitable<T>[], then: (settled: T[]) => Awaitable<R>): Awaitable<R> {
  if (values.some((value) => value instanceof Promise)) return Promise.all(values).then(then);
  return then(values as T[]);
}
