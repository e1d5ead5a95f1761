import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { ResponseCache, type CacheRequest, type StoredResponse } from '../../src/gateway/response-cache.js';

function response(clock: ManualClock, bodyBytes: number, extra: Partial<StoredResponse> = {}): StoredResponse {
  return { status: 200, statusText: 'OK', headerLines: '', body: Buffer.alloc(bodyBytes), storedAt: clock.now(), initialAge: 0, lifetimeSeconds: 60, vary: [], coded: false, unzippable: false, ...extra };
}

function request(headers: Record<string, string> = {}, overrides: Partial<CacheRequest> = {}): CacheRequest {
  return { method: 'GET', acceptsGzip: false, upstreamHeader: (name) => headers[name], ...overrides };
}
const plainRequest = request();

describe('ResponseCache', () => {
  it('stays within its bytes, dropping the least recently used key first', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    for (const key of ['a', 'b', 'c', 'd']) cache.store(key, response(clock, 10_000));
    expect(cache.find('a', plainRequest)).not.toBeNull();
    for (const key of ['e', 'f', 'g', 'h', 'i']) cache.store(key, response(clock, 10_000));
    expect(cache.size).toBeLessThanOrEqual(100_000);
    // b went first; a, used since, stayed.
    expect(['a', 'b', 'i'].map((key) => cache.find(key, plainRequest) !== null)).toEqual([true, false, true]);
  });

  it('answers a fresh response only, with its age', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    cache.store('k', response(clock, 10, { initialAge: 2, lifetimeSeconds: 10 }));
    clock.advance(5_000);
    expect(cache.find('k', plainRequest)?.age).toBe(7);
    clock.advance(3_000);
    expect(cache.find('k', plainRequest)).toBeNull();
  });

  it('gives a coded response to a client that takes gzip, or that the gateway unzips it for (not for HEAD), and matches Vary values', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    cache.store('only gzip', response(clock, 10, { coded: true, vary: [['x-foo', 'bar']] }));
    expect(cache.find('only gzip', request({ 'x-foo': 'bar' }))).toBeNull();
    expect(cache.find('only gzip', request({ 'x-foo': 'bar' }, { acceptsGzip: true }))).not.toBeNull();
    expect(cache.find('only gzip', request({ 'x-foo': 'baz' }, { acceptsGzip: true }))).toBeNull();
    cache.store('unzippable', response(clock, 10, { coded: true, unzippable: true }));
    expect(cache.find('unzippable', plainRequest)).not.toBeNull();
    expect(cache.find('unzippable', request({}, { method: 'HEAD' }))).toBeNull();
  });

  it('keeps five responses of different Vary values per key at most, the newest', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(1_000_000, clock);
    for (let value = 0; value < 7; value++) cache.store('k', response(clock, 10, { vary: [['x-v', String(value)]] }));
    const found = (value: number) => cache.find('k', request({ 'x-v': String(value) })) !== null;
    expect([0, 1, 2, 3, 4, 5, 6].map(found)).toEqual([false, false, true, true, true, true, true]);
    expect(cache.size).toBeLessThan(5 * 1_400);
  });

  it('refuses a response larger than an eighth of it, leaving what it holds', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(80_000, clock);
    expect(cache.store('k', response(clock, 100))).toBe(true);
    expect(cache.store('k', response(clock, 9_500, { vary: [['x', '1']] }))).toBe(false);
    expect(cache.find('k', plainRequest)).not.toBeNull();
  });

  it('lets requests wait for a fetch of a key it holds, tells them how it went, and forgets a key found uncacheable', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    expect(cache.beginFetch('never held')).toBe(false);
    cache.store('k', response(clock, 10, { lifetimeSeconds: 1 }));
    clock.advance(2_000);
    expect(cache.beginFetch('k')).toBe(true);
    const told: boolean[] = [];
    const waiter = { fetchEnded: (stored: boolean) => told.push(stored) };
    const stop = cache.waitFor('k', waiter);
    cache.waitFor('k', { fetchEnded: (stored: boolean) => told.push(!stored) });
    stop!();
    cache.endFetch('k', 'uncacheable');
    expect(told).toEqual([true]);
    expect([cache.size, cache.beginFetch('k'), cache.waitFor('k', waiter)]).toEqual([0, false, null]);
  });

  it('lets no request wait while the key holds a fresh response for other Vary values', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    cache.store('k', response(clock, 10, { vary: [['x-api-user-id', 'a']] }));
    expect(cache.find('k', request({ 'x-api-user-id': 'b' }))).toBeNull();
    expect(cache.beginFetch('k')).toBe(false);
  });

  it('bounds the bytes of responses being copied in to a quarter of its size', () => {
    const cache = new ResponseCache(100_000, new ManualClock());
    expect([cache.reserveFill(20_000), cache.reserveFill(5_000), cache.reserveFill(1)]).toEqual([true, true, false]);
    cache.releaseFill(20_000);
    expect(cache.reserveFill(20_000)).toBe(true);
  });
});
