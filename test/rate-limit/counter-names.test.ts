import { describe, expect, it } from 'vitest';
import type { RateLimit } from '../../src/api-backends/model.js';
import { CounterNames } from '../../src/rate-limit/counter-names.js';

const byIp: RateLimit = { duration: 1000, limit_by: 'ip', limit: 5, response_headers: false };
const byKey: RateLimit = { duration: 3_600_000, limit_by: 'api_key', limit: 100, response_headers: true };
const request = (overrides: Partial<{ bucket: string; apiKeyPrefix: string | null; ip: string }> = {}) => ({ bucket: 'api.example.com', apiKeyPrefix: 'abcdefghijklmnop', ip: '192.0.2.1', limits: [], ...overrides });

describe('counter names', () => {
  it('name one counter per limit, bucket and client, the same one each time', () => {
    const names = new CounterNames();
    expect(names.of(byIp, request())).toBe('1000|ip|api.example.com|i:192.0.2.1');
    expect(names.of(byKey, request())).toBe('3600000|api_key|api.example.com|k:abcdefghijklmnop');
    expect(names.of(byIp, request())).toBe(names.of(byIp, request()));
    const all = [
      names.of(byIp, request()),
      names.of(byIp, request({ ip: '192.0.2.2' })),
      names.of(byIp, request({ bucket: 'other' })),
      names.of({ ...byIp, duration: 2000 }, request()),
      names.of(byKey, request()),
      names.of(byKey, request({ apiKeyPrefix: 'zzzzzzzzzzzzzzzz' })),
    ];
    expect(new Set(all).size).toBe(all.length);
  });

  it('count a keyless request under an api_key limit by IP, apart from a key that reads like that IP', () => {
    const names = new CounterNames();
    const keyless = names.of(byKey, request({ apiKeyPrefix: null, ip: '192.0.2.1' }));
    const lookalike = names.of(byKey, request({ apiKeyPrefix: '192.0.2.1', ip: '198.51.100.7' }));
    expect(keyless).toBe('3600000|api_key|api.example.com|i:192.0.2.1');
    expect(lookalike).toBe('3600000|api_key|api.example.com|k:192.0.2.1');
  });

  it('keep answering the same names past its bound, which it empties instead of growing', () => {
    const bounded = new CounterNames(3);
    const fresh = new CounterNames();
    for (let round = 0; round < 3; round++) {
      for (let client = 0; client < 10; client++) {
        const ip = `198.51.100.${client}`;
        expect(bounded.of(byIp, request({ ip }))).toBe(fresh.of(byIp, request({ ip })));
        expect(bounded.held).toBeLessThanOrEqual(3);
      }
    }
    expect(fresh.held).toBe(10);
  });
});

describe('counter names shared by equal limits', () => {
  it('keep one name per client for backends whose limits are equal but separate objects', () => {
    const names = new CounterNames();
    const first = names.of(byKey, request());
    const sameLimitOfAnotherBackend = { ...byKey };
    expect(names.of(sameLimitOfAnotherBackend, request())).toBe(first);
    expect(names.held).toBe(1);
  });
});
