import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { DEFAULT_USER_SETTINGS, type ApiUserSettings } from '../../src/api-users/model.js';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture, type Reply } from './support.js';

const CONTACT_URL = 'https://help.example/contact';
let fx: ProxyFixture;

/** A keyless backend at `/<name>/` with these settings (and sub-settings). */
function restrictedBackend(name: string, settings: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return echoBackend(fx.echo, { url_matches: [{ frontend_prefix: `/${name}/`, backend_prefix: '/backend/' }], settings: { disable_api_key: true, ...settings }, ...extra });
}

beforeAll(async () => {
  fx = await startProxyFixture({ config: { contact_url: CONTACT_URL } });
  const { gw } = fx;
  await gw.publishBackend(restrictedBackend('v4', { allowed_ips: ['10.0.0.0/8'] }));
  await gw.publishBackend(restrictedBackend('v6', { allowed_ips: ['2001:db8::/32'] }));
  await gw.publishBackend(restrictedBackend('single', { allowed_ips: ['127.0.0.1'] }));
  await gw.publishBackend(restrictedBackend('open', {}));
  await gw.publishBackend(
    restrictedBackend('sub', { allowed_ips: ['10.0.0.0/8'] }, { sub_settings: [{ http_method: 'any', regex: '^/backend/office', settings: { allowed_ips: ['192.168.0.0/16'] } }] }),
  );
  await gw.publishBackend(restrictedBackend('referers', { allowed_referers: ['*.example.com/*', 'https://partner.test/app/*'] }));
  await gw.publishBackend(
    restrictedBackend('limited', {
      allowed_ips: ['10.0.0.0/8'],
      disable_api_key: false,
      rate_limit_mode: 'custom',
      rate_limits: [{ duration: 60_000, limit_by: 'api_key', limit: 1, response_headers: true }],
    }),
  );
});
afterAll(() => fx.close());

/** A request from `ip`, named by the loopback peer (always a trusted proxy) in X-Forwarded-For. */
function from(ip: string, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return send(fx.gw.url, path, { headers: { 'x-forwarded-for': ip, ...headers } });
}

async function keyWith(settings: Partial<ApiUserSettings>): Promise<string> {
  const { apiKey } = await fx.gw.createUser({ email: `restricted-${Math.random().toString(36).slice(2)}@example.com`, settings: { ...DEFAULT_USER_SETTINGS, ...settings } });
  return apiKey;
}

describe('allowed_ips', () => {
  it('admits an address inside an IPv4 range and refuses one outside it', async () => {
    expect((await from('10.20.30.40', '/v4/a')).status).toBe(200);
    expect(errorCode(await from('11.0.0.1', '/v4/a'))).toBe('API_KEY_UNAUTHORIZED');
    // The peer itself (127.0.0.1) when no proxy names a client.
    expect((await send(fx.gw.url, '/v4/a')).status).toBe(403);
  });

  it('matches IPv6 ranges, and IPv4-mapped IPv6 addresses against IPv4 ranges', async () => {
    expect((await from('2001:db8:1::5', '/v6/a')).status).toBe(200);
    expect((await from('2001:db9::1', '/v6/a')).status).toBe(403);
    expect((await from('10.0.0.1', '/v6/a')).status).toBe(403);
    expect((await from('::ffff:10.1.2.3', '/v4/a')).status).toBe(200);
  });

  it('matches a single address exactly', async () => {
    expect((await send(fx.gw.url, '/single/a')).status).toBe(200);
    expect((await from('127.0.0.2', '/single/a')).status).toBe(403);
  });

  it('checks the client named through trusted proxies, not the proxy, and refuses an unparsable one', async () => {
    // 127.0.0.1 is trusted, so the client is the last untrusted hop.
    expect((await from('203.0.113.9, 10.0.0.7', '/v4/a')).status).toBe(200);
    expect((await from('10.0.0.7, 203.0.113.9', '/v4/a')).status).toBe(403);
    expect((await from('garbage', '/v4/a')).status).toBe(403);
  });

  it('uses the list of the sub-setting that matches, else the backend\'s', async () => {
    expect((await from('192.168.1.1', '/sub/office/x')).status).toBe(200);
    expect((await from('10.1.1.1', '/sub/office/x')).status).toBe(403);
    expect((await from('10.1.1.1', '/sub/elsewhere')).status).toBe(200);
    expect((await from('192.168.1.1', '/sub/elsewhere')).status).toBe(403);
  });

  it("enforces the backend's list and the user's each on its own", async () => {
    const key = await keyWith({ allowed_ips: ['10.1.0.0/16', '192.168.0.0/16'] });
    const headers = { 'X-Api-Key': key };
    expect((await from('10.1.2.3', '/v4/a', headers)).status).toBe(200);
    // Backend yes, user no.
    expect((await from('10.2.0.1', '/v4/a', headers)).status).toBe(403);
    // User yes, backend no.
    expect((await from('192.168.0.1', '/v4/a', headers)).status).toBe(403);
    // A backend without a list still applies the user's.
    expect((await from('10.1.2.3', '/open/a', headers)).status).toBe(200);
    expect((await from('203.0.113.1', '/open/a', headers)).status).toBe(403);
  });

  it("applies a user's new list from the next request after the user is saved", async () => {
    const { id, apiKey } = await fx.gw.createUser({ email: 'moving@example.com', settings: { ...DEFAULT_USER_SETTINGS, allowed_ips: ['10.0.0.0/8'] } });
    const headers = { 'X-Api-Key': apiKey };
    expect((await from('172.16.0.1', '/open/a', headers)).status).toBe(403);
    const saved = await fx.gw.adminApi('PUT', `/users/${id}`, { user: { settings: { allowed_ips: ['172.16.0.0/12'] } } });
    expect(saved.status).toBe(200);
    expect((await from('172.16.0.1', '/open/a', headers)).status).toBe(200);
    expect((await from('10.0.0.1', '/open/a', headers)).status).toBe(403);
  });

  it('refuses without reaching the upstream or using rate-limit quota', async () => {
    const key = await keyWith({});
    const before = fx.echo.requests.length;
    for (let attempt = 0; attempt < 3; attempt++) expect((await from('11.0.0.1', '/limited/a', { 'X-Api-Key': key })).status).toBe(403);
    expect(fx.echo.requests.length).toBe(before);
    const allowed = await from('10.0.0.1', '/limited/a', { 'X-Api-Key': key });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['x-ratelimit-remaining']).toBe('0');
    expect(fx.echo.requests.length).toBe(before + 1);
  });
});

describe('allowed_referers', () => {
  it('matches wildcard patterns against the whole Referer, in any case', async () => {
    expect((await send(fx.gw.url, '/referers/a', { headers: { referer: 'http://www.example.com/page' } })).status).toBe(200);
    expect((await send(fx.gw.url, '/referers/a', { headers: { referer: 'HTTP://WWW.EXAMPLE.COM/PAGE' } })).status).toBe(200);
    expect((await send(fx.gw.url, '/referers/a', { headers: { referer: 'https://partner.test/app/view?id=1' } })).status).toBe(200);
    // "*.example.com/*" needs a subdomain and a path; anchored at both ends.
    expect((await send(fx.gw.url, '/referers/a', { headers: { referer: 'http://example.com/page' } })).status).toBe(403);
    expect((await send(fx.gw.url, '/referers/a', { headers: { referer: 'http://www.example.com' } })).status).toBe(403);
    expect((await send(fx.gw.url, '/referers/a', { headers: { referer: 'https://partner.test/other' } })).status).toBe(403);
  });

  it('falls back to the Origin, matched without the pattern\'s path, when the Referer is missing or does not match', async () => {
    expect((await send(fx.gw.url, '/referers/a', { headers: { origin: 'http://www.example.com' } })).status).toBe(200);
    expect((await send(fx.gw.url, '/referers/a', { headers: { origin: 'https://partner.test' } })).status).toBe(200);
    expect((await send(fx.gw.url, '/referers/a', { headers: { referer: 'https://partner.test/', origin: 'https://partner.test' } })).status).toBe(200);
    expect((await send(fx.gw.url, '/referers/a', { headers: { origin: 'https://evil.test' } })).status).toBe(403);
    expect((await send(fx.gw.url, '/referers/a', { headers: { referer: 'https://evil.test/', origin: 'https://evil.test' } })).status).toBe(403);
    expect((await send(fx.gw.url, '/referers/a')).status).toBe(403);
  });

  it("enforces the backend's patterns and the user's each on their own", async () => {
    const key = await keyWith({ allowed_referers: ['*.example.com/specific*', '*.yahoo.com/*'] });
    const withReferer = (path: string, referer: string) => send(fx.gw.url, path, { headers: { 'X-Api-Key': key, referer } });
    expect((await withReferer('/referers/a', 'http://www.example.com/specificstuff')).status).toBe(200);
    expect((await withReferer('/referers/a', 'http://www.example.com/testing')).status).toBe(403);
    expect((await withReferer('/referers/a', 'http://www.yahoo.com/')).status).toBe(403);
    expect((await withReferer('/open/a', 'http://www.yahoo.com/')).status).toBe(200);
    expect((await withReferer('/open/a', 'http://www.bing.com/')).status).toBe(403);
  });
});

describe('a refused request', () => {
  it("answers API Umbrella's API_KEY_UNAUTHORIZED and never reaches the upstream", async () => {
    const before = fx.echo.requests.length;
    const reply = await send(fx.gw.url, '/referers/a', { headers: { referer: 'https://evil.test/' } });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text)).toEqual({
      error: { code: 'API_KEY_UNAUTHORIZED', message: `The api_key supplied is not authorized to access the given service. Contact us at ${CONTACT_URL} for assistance` },
    });
    expect(fx.echo.requests.length).toBe(before);
  });

  it('is logged with gatekeeper_denied_code api_key_unauthorized', async () => {
    const reply = await from('11.0.0.1', '/v4/logged');
    const requestId = String(reply.headers['x-api-umbrella-request-id']);
    const entry = await loggedEntry(requestId);
    expect(entry).toMatchObject({ response_status: 403, gatekeeper_denied_code: 'api_key_unauthorized', request_ip: '11.0.0.1', upstream_time: null });
  });
});

/** Entries are recorded when the response closes, which the client may see a moment before the server does: poll, up to 2 s. */
async function loggedEntry(requestId: string): Promise<AnalyticsEntry | undefined> {
  const query = fx.gw.context.db.prepare('SELECT * FROM analytics_logs WHERE request_id = ?');
  for (const deadline = Date.now() + 2000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 5))) {
    fx.gw.context.analytics.flush();
    const entry = query.get(requestId) as AnalyticsEntry | undefined;
    if (entry !== undefined) return entry;
  }
  return undefined;
}
