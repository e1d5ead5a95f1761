// API Umbrella's anonymous_rate_limit_behavior and
// authenticated_rate_limit_behavior: which of a backend's limits count for
// requests without a key and for requests with one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
const limit = (limitBy: 'ip' | 'api_key', count: number) => ({ duration: 60_000, limit_by: limitBy, limit: count, response_headers: false });
/** The api_key limit is the tighter one: it shows whether it applied. */
const KEY_TIGHTER = [limit('ip', 3), limit('api_key', 2)];
/** The ip limit is the tighter one. */
const IP_TIGHTER = [limit('ip', 2), limit('api_key', 3)];

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ context: { clock } });
  // Each backend counts in a bucket of its own.
  const backend = (name: string, settings: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    fx.gw.publishBackend(
      echoBackend(fx.echo, {
        url_matches: [{ frontend_prefix: `/${name}/`, backend_prefix: '/' }],
        settings: { disable_api_key: true, rate_limit_mode: 'custom', rate_limit_bucket_name: name, ...settings },
        ...extra,
      }),
    );
  await backend('anonymous-default', { rate_limits: KEY_TIGHTER });
  await backend('anonymous-ip-only', { rate_limits: KEY_TIGHTER, anonymous_rate_limit_behavior: 'ip_only' });
  await backend('authenticated-default', { rate_limits: IP_TIGHTER });
  await backend('authenticated-all', { rate_limits: IP_TIGHTER, authenticated_rate_limit_behavior: 'all' });
  await backend('api-key-only', { rate_limits: IP_TIGHTER, authenticated_rate_limit_behavior: 'api_key_only' });
  await backend('only-ip-limits', { rate_limits: [limit('ip', 1)], authenticated_rate_limit_behavior: 'api_key_only' });
  await backend('sub', { rate_limits: IP_TIGHTER }, { sub_settings: [{ http_method: 'any', regex: '^/keyed', settings: { authenticated_rate_limit_behavior: 'api_key_only' } }] });
});
afterAll(() => fx.close());

/** How many calls in a row pass before the first 429 (at most 10). */
async function passing(path: string, apiKey?: string): Promise<number> {
  clock.advance(120_000);
  for (let count = 0; count < 10; count++) {
    const reply = await send(fx.gw.url, path, { headers: apiKey === undefined ? {} : { 'X-Api-Key': apiKey } });
    if (reply.status === 429) return count;
    expect(reply.status).toBe(200);
  }
  return 10;
}

describe('anonymous_rate_limit_behavior', () => {
  it('ip_fallback (the default): limits by api_key count per IP for requests without a key', async () => {
    expect(await passing('/anonymous-default/x')).toBe(2);
  });

  it('ip_only: only the limits by ip count for requests without a key', async () => {
    expect(await passing('/anonymous-ip-only/x')).toBe(3);
    expect(await passing('/anonymous-ip-only/x', fx.apiKey)).toBe(2);
  });
});

describe('authenticated_rate_limit_behavior', () => {
  it('all (the default): every limit counts for requests with a key', async () => {
    expect(await passing('/authenticated-default/x', fx.apiKey)).toBe(2);
    expect(await passing('/authenticated-all/x', fx.apiKey)).toBe(2);
  });

  it('api_key_only: the limits by ip do not count for requests with a key, and still do without one', async () => {
    expect(await passing('/api-key-only/x', fx.apiKey)).toBe(3);
    expect(await passing('/api-key-only/x')).toBe(2);
  });

  it("api_key_only applies to a user's own limits too", async () => {
    const { apiKey } = await fx.gw.createUser({
      email: 'own-limits@example.com',
      settings: { rate_limit_mode: 'custom', rate_limits: [limit('ip', 1), limit('api_key', 4)], allowed_ips: [], allowed_referers: [] },
    });
    expect(await passing('/api-key-only/x', apiKey)).toBe(4);
    expect(await passing('/authenticated-default/x', apiKey)).toBe(1);
  });

  it('api_key_only on a backend with limits by ip alone leaves keyed requests unlimited', async () => {
    expect(await passing('/only-ip-limits/x', fx.apiKey)).toBe(10);
    expect(await passing('/only-ip-limits/x')).toBe(1);
  });

  it('is set per sub-setting too', async () => {
    expect(await passing('/sub/keyed/x', fx.apiKey)).toBe(3);
    expect(await passing('/sub/other/x', fx.apiKey)).toBe(2);
  });
});

it('refuses an unknown behavior with 422 naming the field', async () => {
  const refused = await fx.gw.adminApi('POST', '/apis', { api: echoBackend(fx.echo, { settings: { anonymous_rate_limit_behavior: 'sometimes' } }) });
  expect(refused.status).toBe(422);
  expect(refused.body.errors).toHaveProperty(['settings.anonymous_rate_limit_behavior']);
});
