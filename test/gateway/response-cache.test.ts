import { describe, expect, it } from 'vitest';
import { CacheFill } from '../../src/gateway/cache-fill.js';
import { CacheHeaders } from '../../src/gateway/cache-policy.js';
import { BodyHeaders } from '../../src/gateway/compression.js';
import { ManualClock } from '../../src/lib/clock.js';
import { MAX_UNCACHEABLE_KEYS, ResponseCache, type CacheRequest, type StoredResponse } from '../../src/gateway/response-cache.js';

function response(clock: ManualClock, bodyBytes: number, extra: Partial<StoredResponse> = {}): StoredResponse {
  return { status: 200, statusText: 'OK', headerLines: '', body: Buffer.alloc(bodyBytes), storedAt: clock.now(), initialAge: 0, lifetimeSeconds: 60, vary: [], coded: false, unzippable: false, ...extra };
}

function request(headers: Record<string, string> = {}, overrides: Partial<CacheRequest> = {}): CacheRequest {
  return { method: 'GET', acceptsGzip: false, upstreamHeader: (name) => headers[name], ...overrides };
}
const plainRequest = request();
/** The backend the keys are of. */
const ORIGIN = 'backend\n';

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

  it('takes a response stored after the clock now reads (the clock stepped back) as stale: its age is unknown', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    cache.store('k', response(clock, 10, { lifetimeSeconds: 5 }));
    clock.advance(-3_600_000);
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

  it('lets requests wait for a fetch of a key it holds only expired, tells them how it went, and forgets a key found uncacheable', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    cache.store('k', response(clock, 10, { lifetimeSeconds: 1 }));
    clock.advance(2_000);
    expect(cache.beginFetch('k', ORIGIN)).toBe(true);
    expect(cache.beginFetch('k', ORIGIN)).toBe(false);
    const told: boolean[] = [];
    const waiter = { fetchEnded: (stored: boolean) => told.push(stored) };
    const stop = cache.waitFor('k', waiter);
    cache.waitFor('k', { fetchEnded: (stored: boolean) => told.push(!stored) });
    stop!();
    cache.endFetch('k', 'uncacheable');
    expect(told).toEqual([true]);
    expect([cache.size, cache.beginFetch('k', ORIGIN), cache.waitFor('k', waiter)]).toEqual([0, false, null]);
  });

  it("lets requests wait for the first fetch of a key never held once its backend sent something to keep, and keeps nothing of it unless it stored a response", () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    expect(cache.beginFetch('before', ORIGIN)).toBe(false);
    cache.noteKeepable(ORIGIN);
    expect([cache.beginFetch('another backend', 'another\n'), cache.waitFor('another backend', { fetchEnded: () => {} })]).toEqual([false, null]);
    const told: string[] = [];
    expect(cache.beginFetch('stored', ORIGIN)).toBe(true);
    cache.waitFor('stored', { fetchEnded: (stored) => told.push(`stored: ${stored}`) });
    cache.store('stored', response(clock, 10));
    cache.endFetch('stored', 'stored');
    expect(cache.find('stored', plainRequest)).not.toBeNull();
    expect(cache.beginFetch('failed', ORIGIN)).toBe(true);
    cache.waitFor('failed', { fetchEnded: (stored) => told.push(`failed: ${stored}`) });
    cache.endFetch('failed', 'failed');
    expect(told).toEqual(['stored: true', 'failed: false']);
    // Nothing is left of a fetch that failed: the next request fetches, and others wait for it again.
    expect([cache.waitFor('failed', { fetchEnded: () => {} }), cache.beginFetch('failed', ORIGIN)]).toEqual([null, true]);
  });

  it(`remembers the last ${MAX_UNCACHEABLE_KEYS} keys found uncacheable while requests waited, whose requests then do not wait, until one is stored`, () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    cache.noteKeepable(ORIGIN);
    const uncacheable = (key: string, waited = true) => {
      cache.beginFetch(key, ORIGIN);
      if (waited) cache.waitFor(key, { fetchEnded: () => {} });
      cache.endFetch(key, 'uncacheable');
    };
    uncacheable('alone', false);
    expect(cache.beginFetch('alone', ORIGIN)).toBe(true);
    for (let index = 0; index <= MAX_UNCACHEABLE_KEYS; index++) uncacheable(`key ${index}`);
    // The oldest was forgotten; the newest is remembered.
    expect([cache.beginFetch('key 0', ORIGIN), cache.beginFetch(`key ${MAX_UNCACHEABLE_KEYS}`, ORIGIN)]).toEqual([true, false]);
    expect(cache.size).toBe(0);

    // Storing a response forgets it: once that is evicted, the next request fetches it for others again.
    cache.store('key 1', response(clock, 10));
    for (let index = 0; index < 10; index++) cache.store(`large ${index}`, response(clock, 10_000));
    expect(cache.find('key 1', plainRequest)).toBeNull();
    expect(cache.beginFetch('key 1', ORIGIN)).toBe(true);
  });

  it('lets no request wait while the key holds a fresh response for other Vary values', () => {
    const clock = new ManualClock();
    const cache = new ResponseCache(100_000, clock);
    cache.store('k', response(clock, 10, { vary: [['x-api-user-id', 'a']] }));
    expect(cache.find('k', request({ 'x-api-user-id': 'b' }))).toBeNull();
    expect(cache.beginFetch('k', ORIGIN)).toBe(false);
  });

  it('bounds the bytes of responses being copied in to a quarter of its size', () => {
    const cache = new ResponseCache(100_000, new ManualClock());
    expect([cache.reserveFill(20_000), cache.reserveFill(5_000), cache.reserveFill(1)]).toEqual([true, true, false]);
    cache.releaseFill(20_000);
    expect(cache.reserveFill(20_000)).toBe(true);
  });
});

describe('CacheFill', () => {
  const headOf = (length: number | undefined) => {
    const caching = new CacheHeaders();
    caching.note('cache-control', 'max-age=60');
    const body = new BodyHeaders();
    if (length !== undefined) body.note('content-length', String(length));
    return { status: 200, statusText: 'OK', rawHeaders: [], caching, body };
  };

  it('ends a fill for want of memory as failed, not uncacheable, so the key is not remembered as never kept', () => {
    const cache = new ResponseCache(100_000, new ManualClock());
    // Fills in progress may hold a quarter of the cache: 25,000 bytes.
    const first = CacheFill.begin(cache, 'a', headOf(12_000), plainRequest, false);
    const second = CacheFill.begin(cache, 'b', headOf(12_000), plainRequest, false);
    expect([first, second].every((fill) => fill instanceof CacheFill)).toBe(true);
    expect(CacheFill.begin(cache, 'c', headOf(12_000), plainRequest, false)).toBe('failed');
    const streamed = CacheFill.begin(cache, 'd', headOf(undefined), plainRequest, false) as CacheFill;
    expect(streamed.add(Buffer.alloc(2_000))).toBe('failed');
    expect(CacheFill.begin(cache, 'e', headOf(20_000), plainRequest, false)).toBe('uncacheable');
  });
});
