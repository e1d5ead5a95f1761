import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture } from './support.js';

const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
const TWO_PER_MINUTE = [{ duration: 60_000, limit_by: 'api_key', limit: 2, response_headers: true }];
let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({
    context: { clock },
    config: { default_api_backend_settings: { rate_limits: [{ duration: 60_000, limit_by: 'ip', limit: 1, response_headers: false }] } },
  });
  await fx.gw.publishBackend(echoBackend(fx.echo, { settings: { rate_limit_mode: 'custom', rate_limits: TWO_PER_MINUTE } }));
  await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/defaults/', backend_prefix: '/' }] }));
  await fx.gw.publishBackend(
    echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/unlimited/', backend_prefix: '/' }], settings: { rate_limit_mode: 'unlimited' } }),
  );
  const none = [{ duration: 86_400_000, limit_by: 'api_key', limit: 0, response_headers: true }];
  await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/closed/', backend_prefix: '/' }], settings: { rate_limit_mode: 'custom', rate_limits: none } }));
});
afterAll(() => fx.close());

describe('rate limits', () => {
  it('counts down in headers, then answers 429 OVER_RATE_LIMIT with Retry-After, without reaching the upstream', async () => {
    const { apiKey } = await fx.gw.createUser({ email: 'limited@example.com' });
    const call = () => send(fx.gw.url, '/echo/x', { headers: { 'X-Api-Key': apiKey } });
    const first = await call();
    expect([first.status, first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']]).toEqual([200, '2', '1']);
    const second = await call();
    expect([second.status, second.headers['x-ratelimit-remaining']]).toEqual([200, '0']);
    const before = fx.echo.requests.length;
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(errorCode(refused)).toBe('OVER_RATE_LIMIT');
    expect(JSON.parse(refused.text).error.message).toBe(
      `You have exceeded your rate limit. Try again later or contact us at ${fx.gw.url}/contact/ for assistance`,
    );
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(fx.echo.requests.length).toBe(before);
    clock.advance(120_000);
    expect((await call()).status).toBe(200);
  });

  it("applies the configured defaults when the backend sets no mode, and the user's unlimited mode over them", async () => {
    const { apiKey } = await fx.gw.createUser({ email: 'default@example.com' });
    const free = await fx.gw.createUser({ email: 'free@example.com', settings: { rate_limit_mode: 'unlimited', rate_limits: [], allowed_ips: [], allowed_referers: [] } });
    expect((await send(fx.gw.url, '/defaults/x', { headers: { 'X-Api-Key': apiKey } })).status).toBe(200);
    expect((await send(fx.gw.url, '/defaults/x', { headers: { 'X-Api-Key': apiKey } })).status).toBe(429);
    for (let index = 0; index < 3; index++) {
      expect((await send(fx.gw.url, '/defaults/x', { headers: { 'X-Api-Key': free.apiKey } })).status).toBe(200);
    }
    clock.advance(120_000);
  });

  it('refuses every request under a limit of 0 without a Retry-After, which would have clients retry in vain', async () => {
    const refused = await send(fx.gw.url, '/closed/x', { headers: { 'X-Api-Key': fx.apiKey } });
    expect([refused.status, errorCode(refused), refused.headers['x-ratelimit-limit']]).toEqual([429, 'OVER_RATE_LIMIT', '0']);
    expect(refused.headers['retry-after']).toBeUndefined();
  });

  it('applies no limit to an unlimited backend', async () => {
    for (let index = 0; index < 4; index++) {
      const reply = await send(fx.gw.url, '/unlimited/x', { headers: { 'X-Api-Key': fx.apiKey } });
      expect(reply.status).toBe(200);
      expect(reply.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});
