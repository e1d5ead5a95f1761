import { describe, expect, it } from 'vitest';
import { CacheHeaders, freshLifetime, upstreamAge, varyNames } from '../../src/gateway/cache-policy.js';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const now = { now: () => NOW };

function headers(lines: Record<string, string>): CacheHeaders {
  const noted = new CacheHeaders();
  for (const [name, value] of Object.entries(lines)) noted.note(name.toLowerCase(), value);
  return noted;
}

describe('freshLifetime', () => {
  it('reads s-maxage before max-age, and Surrogate-Control before both', () => {
    expect(freshLifetime(200, headers({ 'cache-control': 'max-age=60, s-maxage=30' }), now)).toBe(30);
    expect(freshLifetime(200, headers({ 'cache-control': 'public, max-age="45"' }), now)).toBe(45);
    expect(freshLifetime(200, headers({ 'surrogate-control': 'max-age=90', 'cache-control': 's-maxage=30' }), now)).toBe(90);
    expect(freshLifetime(200, headers({ 'surrogate-control': 'no-store', 'cache-control': 'max-age=30' }), now)).toBe(0);
    // Without a lifetime Surrogate-Control says nothing, and Cache-Control decides.
    expect(freshLifetime(200, headers({ 'surrogate-control': 'content="ESI/1.0"', 'cache-control': 'max-age=30' }), now)).toBe(30);
    expect(freshLifetime(200, headers({ 'surrogate-control': 'content="ESI/1.0"', 'cache-control': 'private, max-age=30' }), now)).toBe(0);
  });

  it('counts Expires from the response Date, else from now', () => {
    const date = new Date(NOW - 10_000).toUTCString();
    expect(freshLifetime(200, headers({ date, expires: new Date(NOW + 50_000).toUTCString() }), now)).toBe(60);
    expect(freshLifetime(200, headers({ expires: new Date(NOW + 50_000).toUTCString() }), now)).toBe(50);
    expect(freshLifetime(200, headers({ expires: 'not a date' }), now)).toBe(0);
    // max-age wins over Expires.
    expect(freshLifetime(200, headers({ 'cache-control': 'max-age=5', expires: new Date(NOW + 50_000).toUTCString() }), now)).toBe(5);
  });

  it('refuses invalid ages, Vary: *, and statuses a cache may not keep', () => {
    for (const control of ['max-age=-1', 'max-age=1.5', 'max-age=abc']) expect(freshLifetime(200, headers({ 'cache-control': control }), now)).toBe(0);
    expect(freshLifetime(200, headers({ 'cache-control': 'max-age=60', vary: 'Accept, *' }), now)).toBe(0);
    for (const status of [201, 206, 302, 303, 307, 500, 502]) expect(freshLifetime(status, headers({ 'cache-control': 'max-age=60' }), now)).toBe(0);
    for (const status of [203, 204, 300, 308, 404, 410]) expect(freshLifetime(status, headers({ 'cache-control': 'max-age=60' }), now)).toBe(60);
  });
});

describe('upstreamAge and varyNames', () => {
  it('reads Age in whole seconds, and Vary names without Accept-Encoding', () => {
    expect([upstreamAge(headers({ age: '7' })), upstreamAge(headers({ age: 'x' })), upstreamAge(headers({}))]).toEqual([7, 0, 0]);
    expect(varyNames('Accept-Encoding, X-Foo,accept-language, x-foo')).toEqual(['x-foo', 'accept-language']);
    expect(varyNames(undefined)).toEqual([]);
  });
});
