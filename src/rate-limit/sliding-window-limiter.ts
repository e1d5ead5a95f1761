// The one RateLimiter of the code base (proxy, admin login, signup): every
// limit is a sliding-window estimate over counters in a CounterStore, with
// time from the injectable clock.
import type { RateLimit } from '../api-backends/model.js';
import type { Clock } from '../lib/clock.js';
import type { Awaitable, CounterStore } from './counter-store.js';
import { CounterNames } from './counter-names.js';
import type { RateLimitDecision, RateLimitHeaders, RateLimitRequest, RateLimiter } from './limiter.js';
import { estimateCount, msUntilBelow, windowIndex } from './sliding-window.js';

const UNLIMITED: RateLimitDecision = Object.freeze({ allowed: true, headers: null });

export class SlidingWindowLimiter implements RateLimiter {
  private readonly names = new CounterNames();

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

  forget(request: RateLimitRequest): Awaitable<void> {
    const now = this.clock.now();
    const forgotten: Awaitable<void>[] = [];
    for (const limit of request.limits) {
      const counter = this.names.of(limit, request);
      const expiresAt = currentWindowExpiry(now, limit.duration);
      forgotten.push(this.store.forget(counter, expiresAt), this.store.forget(counter, expiresAt - limit.duration));
    }
    return forgotten.some((step) => step instanceof Promise) ? Promise.all(forgotten).then(() => undefined) : undefined;
  }

  /** Runs once per proxied request: plain loops, and no promise unless the store answers with one. */
  private decide(request: RateLimitRequest, counting: boolean): Awaitable<RateLimitDecision> {
    const { limits } = request;
    if (limits.length === 0) return UNLIMITED;
    const now = this.clock.now();
    const counters: string[] = new Array(limits.length);
    const counts: Awaitable<number>[] = new Array(2 * limits.length);
    let waiting = false;
    for (let at = 0; at < limits.length; at++) {
      const { duration } = limits[at]!;
      const expiresAt = currentWindowExpiry(now, duration);
      const counter = (counters[at] = this.names.of(limits[at]!, request));
      const current = (counts[2 * at] = this.store.get(counter, expiresAt));
      const previous = (counts[2 * at + 1] = this.store.get(counter, expiresAt - duration));
      waiting ||= current instanceof Promise || previous instanceof Promise;
    }
    if (waiting) return Promise.all(counts).then((values) => this.conclude(limits, counters, values, now, counting));
    return this.conclude(limits, counters, counts as number[], now, counting);
  }

  private conclude(limits: readonly RateLimit[], counters: readonly string[], counts: readonly number[], now: number, counting: boolean): Awaitable<RateLimitDecision> {
    const decision = judge(limits, counts, now);
    // A refused request counts against no limit, so a client that keeps retrying is not locked out for longer.
    if (!counting || !decision.allowed) return decision;
    let pending: Promise<number>[] | null = null;
    for (let at = 0; at < limits.length; at++) {
      const counted = this.store.increment(counters[at]!, currentWindowExpiry(now, limits[at]!.duration));
      if (counted instanceof Promise) (pending ??= []).push(counted);
    }
    return pending === null ? decision : Promise.all(pending).then(() => decision);
  }
}

/** The current window's count is needed through the next window too, as that one's previous count. */
function currentWindowExpiry(now: number, duration: number): number {
  return (windowIndex(now, duration) + 2) * duration;
}

/** `counts` holds each limit's current and previous window count, in pairs. */
function judge(limits: readonly RateLimit[], counts: readonly number[], now: number): RateLimitDecision {
  let refused = false;
  let never = false;
  let waitMs = 0;
  let shown: { limit: number; estimate: number } | null = null;
  for (let at = 0; at < limits.length; at += 1) {
    const limit = limits[at]!;
    const elapsed = now - windowIndex(now, limit.duration) * limit.duration;
    const current = counts[2 * at]!;
    const previous = counts[2 * at + 1]!;
    const estimate = estimateCount(current, previous, elapsed, limit.duration);
    if (estimate >= limit.limit) {
      refused = true;
      if (limit.limit === 0) never = true;
      else waitMs = Math.max(waitMs, msUntilBelow(limit.limit, current, previous, elapsed, limit.duration));
    }
    if (limit.response_headers && shown === null) shown = { limit: limit.limit, estimate };
  }
  const headers = shown === null ? null : remainingAfter(shown, refused);
  if (!refused) return { allowed: true, headers };
  return { allowed: false, retryAfterSeconds: never ? null : Math.ceil(waitMs / 1000), headers };
}

/**
 * A passing request uses one of what remains, never going below 0. A refused
 * one shows 0 whichever limit refused it, as API Umbrella reports the
 * exceeded limit's remaining: "7 remaining" on a 429 would tell the client
 * to go on.
 */
function remainingAfter({ limit, estimate }: { limit: number; estimate: number }, refused: boolean): RateLimitHeaders {
  return { limit, remaining: refused ? 0 : Math.max(0, limit - estimate - 1) };
}
