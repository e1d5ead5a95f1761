import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { ResponseCache, type StoredResponse } from '../../src/gateway/response-cache.js';

function response(clock: ManualClock, bodyBytes: number, extra: Partial<StoredResponse> = {}): StoredResponse {
  return { status: 200, statusText: 'OK', rawHeaders: [], body: Buffer.alloc(bodyBytes), storedAt: clock.now(), initialAge: 0, lifetime: 60, vary: [], needsGzipClient: false, ...extra };
}
const plainRequest = { headers: {}, acceptsGzip: false };

describe('ResponseCache', () => {
  it('stays within its bytes, dropping the least recently used key first', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    for (const key of ['a', 'b', 'c', 'd']) cache.store(key, response(clock, 12_000));
    expect(cache.find('a', plainRequest)).not.toBeNull();
    for (const key of ['e', 'f', 'g', 'h', 'i']) cache.store(key, response(clock, 12_000));
    expect(cache.size).toBeLessThanOrEqual(100_000);
    // b went first; a, used since, stayed.
    expect(['a', 'b', 'i'].map((key) => cache.find(key, plainRequest) !== null)).toEqual([true, false, true]);
  });

  it('answers a fresh response only, with its age', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    cache.store('k', response(clock, 10, { initialAge: 2, lifetime: 10 }));
    clock.advance(5_000);
    expect(cache.find('k', plainRequest)?.age).toBe(7);
    clock.advance(3_000);
    expect(cache.find('k', plainRequest)).toBeNull();
  });

  it('gives a gzip-only response to a client that takes gzip alone, and matches Vary values', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    cache.store('k', response(clock, 10, { needsGzipClient: true, vary: [['x-foo', 'bar']] }));
    expect(cache.find('k', plainRequest)).toBeNull();
    expect(cache.find('k', { headers: { 'x-foo': 'bar' }, acceptsGzip: true })).not.toBeNull();
    expect(cache.find('k', { headers: { 'x-foo': 'baz' }, acceptsGzip: true })).toBeNull();
  });

  it('lets requests wait for a fetch of a key it holds, tells them how it went, and forgets a key found uncacheable', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    expect(cache.beginFetch('never held')).toBe(false);
    cache.store('k', response(clock, 10, { lifetime: 1 }));
    clock.advance(2_000);
    expect(cache.beginFetch('k')).toBe(true);
    const told: boolean[] = [];
    const stop = cache.waitFor('k', (stored) => told.push(stored));
    cache.waitFor('k', (stored) => told.push(stored));
    stop!();
    cache.endFetch('k', 'uncacheable');
    expect(told).toEqual([false]);
    expect([cache.size, cache.beginFetch('k'), cache.waitFor('k', () => {})]).toEqual([0, false, null]);
  });
});
