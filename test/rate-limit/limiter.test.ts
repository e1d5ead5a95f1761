import { describe, expect, it } from 'vitest';
import type { RateLimit } from '../../src/api-backends/model.js';
import { DEFAULT_RATE_LIMITS } from '../../src/config/schema.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { CounterStore } from '../../src/rate-limit/counter-store.js';
import type { RateLimitDecision, RateLimitRequest } from '../../src/rate-limit/limiter.js';
import { MemoryCounterStore } from '../../src/rate-limit/memory-store.js';
import { SlidingWindowLimiter } from '../../src/rate-limit/sliding-window-limiter.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

function limit(duration: number, limitBy: RateLimit['limit_by'], count: number, responseHeaders = false): RateLimit {
  return { duration, limit_by: limitBy, limit: count, response_headers: responseHeaders };
}

function request(overrides: Partial<RateLimitRequest> = {}): RateLimitRequest {
  return { bucket: 'api.example.com', apiKeyPrefix: 'KEYPREFIX0000001', ip: '203.0.113.1', limits: [limit(HOUR, 'api_key', 10, true)], ...overrides };
}

/** The in-memory limiter answers synchronously; these tests rely on it. */
function sync(decision: RateLimitDecision | Promise<RateLimitDecision>): RateLimitDecision {
  if (decision instanceof Promise) throw new Error('expected a synchronous answer');
  return decision;
}

function setup() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const limiter = new SlidingWindowLimiter(new MemoryCounterStore(clock), clock);
  const check = (overrides: Partial<RateLimitRequest> = {}) => sync(limiter.check(request(overrides)));
  const peek = (overrides: Partial<RateLimitRequest> = {}) => sync(limiter.peek(request(overrides)));
  return { clock, limiter, check, peek };
}

/** Checks until refused; answers how many passed. */
function passesUntilRefused(check: () => RateLimitDecision, atMost = 10_000): number {
  for (let passed = 0; passed < atMost; passed += 1) if (!check().allowed) return passed;
  throw new Error('never refused');
}

describe('sliding-window limiter', () => {
  it('counts down Remaining to 0 and refuses the next request with Remaining 0', () => {
    const { check } = setup();
    const limits = [limit(HOUR, 'api_key', 3, true)];
    expect([1, 2, 3].map(() => check({ limits }))).toEqual([
      { allowed: true, headers: { limit: 3, remaining: 2 } },
      { allowed: true, headers: { limit: 3, remaining: 1 } },
      { allowed: true, headers: { limit: 3, remaining: 0 } },
    ]);
    expect(check({ limits })).toMatchObject({ allowed: false, headers: { limit: 3, remaining: 0 } });
    expect(check({ limits })).toMatchObject({ allowed: false, headers: { limit: 3, remaining: 0 } });
  });

  it('refuses the 11th request of a 10/hour limit while another key still passes', () => {
    const { check } = setup();
    expect(passesUntilRefused(() => check())).toBe(10);
    expect(check({ apiKeyPrefix: 'OTHERKEY00000002' })).toEqual({ allowed: true, headers: { limit: 10, remaining: 9 } });
  });

  it("forgets a client's counts in the current and the previous window, and no one else's", () => {
    const { clock, limiter, check } = setup();
    const limits = [limit(HOUR, 'api_key', 10, true)];
    passesUntilRefused(() => check({ limits }));
    clock.advance(HOUR);
    // A sliding window still counts most of the previous hour's ten.
    expect(check({ limits })).toMatchObject({ allowed: false });
    check({ limits, apiKeyPrefix: 'OTHERKEY00000002' });
    expect(limiter.forget(request({ limits }))).toBeUndefined();
    expect(check({ limits })).toEqual({ allowed: true, headers: { limit: 10, remaining: 9 } });
    expect(check({ limits, apiKeyPrefix: 'OTHERKEY00000002' })).toEqual({ allowed: true, headers: { limit: 10, remaining: 8 } });
  });

  it('passes everything and sends no headers when there are no limits (unlimited)', () => {
    const { check } = setup();
    for (let i = 0; i < 100; i += 1) expect(check({ limits: [] })).toEqual({ allowed: true, headers: null });
  });

  it('sends no headers when no limit is marked response_headers', () => {
    const { check } = setup();
    expect(check({ limits: [limit(SECOND, 'ip', 1)] })).toEqual({ allowed: true, headers: null });
    // The window ends in 1 s, and at that instant its count still weighs in whole: 1001 ms → 2 s.
    expect(check({ limits: [limit(SECOND, 'ip', 1)] })).toEqual({ allowed: false, retryAfterSeconds: 2, headers: null });
  });

  it('takes the headers from the limit marked response_headers, whichever limit refuses, with 0 remaining on a refusal', () => {
    const { check, clock } = setup();
    const limits = [limit(SECOND, 'ip', 2), limit(HOUR, 'api_key', 1000, true)];
    expect(check({ limits }).headers).toEqual({ limit: 1000, remaining: 999 });
    expect(check({ limits }).headers).toEqual({ limit: 1000, remaining: 998 });
    // Refused by the 1 s limit: 0 remaining, as API Umbrella answers, though the hourly limit has room.
    expect(check({ limits })).toEqual({ allowed: false, retryAfterSeconds: 2, headers: { limit: 1000, remaining: 0 } });
    // Not counted, so the hourly allowance is unchanged once the 1 s limit lets requests through again.
    clock.advance(2 * SECOND);
    expect(check({ limits })).toEqual({ allowed: true, headers: { limit: 1000, remaining: 997 } });
  });

  it('counts a refused request against no limit', () => {
    const { check, peek } = setup();
    const perSecond = limit(SECOND, 'ip', 1);
    const hourly = limit(HOUR, 'ip', 5, true);
    expect(check({ limits: [perSecond, hourly] }).allowed).toBe(true);
    for (let i = 0; i < 20; i += 1) expect(check({ limits: [perSecond, hourly] }).allowed).toBe(false);
    expect(peek({ limits: [hourly] }).headers).toEqual({ limit: 5, remaining: 3 });
  });

  it('limits by IP across keys, and by key across IPs', () => {
    const { check } = setup();
    const byIp = [limit(SECOND, 'ip', 2)];
    expect(check({ limits: byIp, apiKeyPrefix: 'A' }).allowed).toBe(true);
    expect(check({ limits: byIp, apiKeyPrefix: 'B' }).allowed).toBe(true);
    expect(check({ limits: byIp, apiKeyPrefix: 'C' }).allowed).toBe(false);
    expect(check({ limits: byIp, apiKeyPrefix: 'C', ip: '203.0.113.2' }).allowed).toBe(true);

    const byKey = [limit(SECOND, 'api_key', 2)];
    expect(check({ limits: byKey, ip: '198.51.100.1' }).allowed).toBe(true);
    expect(check({ limits: byKey, ip: '198.51.100.2' }).allowed).toBe(true);
    expect(check({ limits: byKey, ip: '198.51.100.3' }).allowed).toBe(false);
  });

  it('applies limits by api_key per IP to a request without a user', () => {
    const { check } = setup();
    const byKey = [limit(SECOND, 'api_key', 2)];
    const keyless = { limits: byKey, apiKeyPrefix: null };
    expect(passesUntilRefused(() => check(keyless))).toBe(2);
    expect(check({ ...keyless, ip: '203.0.113.2' }).allowed).toBe(true);
    // A user's key has its own counter, even from the same IP.
    expect(check({ limits: byKey }).allowed).toBe(true);
  });

  it('keeps separate counters per bucket', () => {
    const { check } = setup();
    expect(passesUntilRefused(() => check({ bucket: 'a.example.com' }))).toBe(10);
    expect(passesUntilRefused(() => check({ bucket: 'b.example.com' }))).toBe(10);
    expect(passesUntilRefused(() => check({ bucket: 'shared-bucket-name' }))).toBe(10);
  });

  it('keeps separate counters per limit duration', () => {
    const { check, peek } = setup();
    const perSecond = limit(SECOND, 'api_key', 2);
    const perMinute = limit(60 * SECOND, 'api_key', 100, true);
    expect(passesUntilRefused(() => check({ limits: [perSecond] }))).toBe(2);
    expect(peek({ limits: [perMinute] }).headers).toEqual({ limit: 100, remaining: 99 });
  });

  it('weights the previous window by how much of it the sliding window still covers', () => {
    const { check, clock } = setup();
    const limits = [limit(SECOND, 'ip', 10)];
    expect(passesUntilRefused(() => check({ limits }))).toBe(10);
    // A quarter into the next window: 0 + floor(10 × 0.75) = 7, so 3 more pass.
    clock.advance(1250);
    expect(passesUntilRefused(() => check({ limits }))).toBe(3);
    // Into the window after: the previous window holds those 3, 90% of it still covered → floor(2.7) = 2.
    clock.advance(850);
    expect(passesUntilRefused(() => check({ limits }))).toBe(8);
    // Two whole windows later nothing is left.
    clock.advance(2 * SECOND);
    expect(passesUntilRefused(() => check({ limits }))).toBe(10);
  });

  it('answers Retry-After in whole seconds until a request would pass again', () => {
    const { check, peek, clock } = setup();
    const limits = [limit(15 * SECOND, 'ip', 4)];
    for (let i = 0; i < 4; i += 1) expect(check({ limits }).allowed).toBe(true);
    clock.advance(5 * SECOND);
    // The window is full until it ends in 10 s; then 4 × (1 − t/15 s) < 4 from the first millisecond on.
    const refused = check({ limits });
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 11 });
    clock.advance(10 * SECOND);
    expect(peek({ limits }).allowed).toBe(false);
    clock.advance(1 * SECOND);
    expect(check({ limits }).allowed).toBe(true);
  });

  it('answers the longest wait when several limits refuse', () => {
    const { check } = setup();
    const limits = [limit(SECOND, 'ip', 1), limit(HOUR, 'ip', 1)];
    check({ limits });
    expect(check({ limits })).toMatchObject({ allowed: false, retryAfterSeconds: 3600 + 1 });
  });

  it('refuses everything under a limit of 0, with no time to retry after: no wait lets a request through', () => {
    const { check } = setup();
    expect(check({ limits: [limit(SECOND, 'ip', 0, true)] })).toEqual({ allowed: false, retryAfterSeconds: null, headers: { limit: 0, remaining: 0 } });
    expect(check({ limits: [limit(SECOND, 'ip', 0), limit(HOUR, 'ip', 5)] })).toMatchObject({ allowed: false, retryAfterSeconds: null });
  });

  it('peek answers as check would, without counting', () => {
    const { check, peek } = setup();
    const limits = [limit(HOUR, 'ip', 2, true)];
    expect(peek({ limits })).toEqual({ allowed: true, headers: { limit: 2, remaining: 1 } });
    expect(peek({ limits })).toEqual({ allowed: true, headers: { limit: 2, remaining: 1 } });
    expect(check({ limits })).toEqual({ allowed: true, headers: { limit: 2, remaining: 1 } });
    expect(check({ limits })).toEqual({ allowed: true, headers: { limit: 2, remaining: 0 } });
    expect(peek({ limits })).toMatchObject({ allowed: false, headers: { limit: 2, remaining: 0 } });
  });

  it('enforces the default limits: 20 per second per key, 50 per second per IP', () => {
    const { check, clock } = setup();
    const limits = DEFAULT_RATE_LIMITS;
    expect(passesUntilRefused(() => check({ limits }))).toBe(20);
    clock.advance(2 * SECOND);
    let passed = 0;
    for (let key = 0; key < 10; key += 1) passed += passesUntilRefused(() => check({ limits, apiKeyPrefix: `KEY${key}` }));
    expect(passed).toBe(50);
  });

  it('works the same over a store that answers with promises (a shared store)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const memory = new MemoryCounterStore(clock);
    const remote: CounterStore = {
      get: async (key, expiresAt) => memory.get(key, expiresAt),
      increment: async (key, expiresAt) => memory.increment(key, expiresAt),
      forget: async (key, expiresAt) => memory.forget(key, expiresAt),
    };
    const limiter = new SlidingWindowLimiter(remote, clock);
    const limits = [limit(HOUR, 'api_key', 2, true)];
    const answer = limiter.check(request({ limits }));
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toEqual({ allowed: true, headers: { limit: 2, remaining: 1 } });
    expect(await limiter.check(request({ limits }))).toEqual({ allowed: true, headers: { limit: 2, remaining: 0 } });
    expect(await limiter.check(request({ limits }))).toEqual({ allowed: false, retryAfterSeconds: 3601, headers: { limit: 2, remaining: 0 } });
    expect(memory.size).toBe(1);
    await limiter.forget(request({ limits }));
    expect(await limiter.check(request({ limits }))).toEqual({ allowed: true, headers: { limit: 2, remaining: 1 } });
  });
});
