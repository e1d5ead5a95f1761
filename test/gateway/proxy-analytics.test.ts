import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { ManualClock } from '../../src/lib/clock.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
let fx: ProxyFixture;
let backendId: string;
/** Called when the upstream holds a request for a path with /held/, which it never answers. */
let held: () => void = () => undefined;
beforeAll(async () => {
  fx = await startProxyFixture({
    context: { clock },
    upstream: (request) => {
      if (!request.url!.includes('/held/')) return false;
      held();
      return true;
    },
  });
  backendId = await fx.gw.publishBackend(echoBackend(fx.echo));
  await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/quiet/', backend_prefix: '/' }], settings: { disable_analytics: true } }));
});
afterAll(() => fx.close());

function loggedEntries(): AnalyticsEntry[] {
  fx.gw.context.analytics.flush();
  return fx.gw.context.db.prepare('SELECT * FROM analytics_logs ORDER BY id').all() as AnalyticsEntry[];
}

/** Entries are recorded when the response closes, which the client may see a moment before the server does: poll, up to 2 s. */
async function entryFor(requestId: string): Promise<AnalyticsEntry | undefined> {
  for (const deadline = Date.now() + 2000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 5))) {
    const entry = loggedEntries().find((row) => row.request_id === requestId);
    if (entry !== undefined) return entry;
  }
  return undefined;
}

describe('analytics entries', () => {
  it('records an allowed request with its user, timings and sizes, the key redacted', async () => {
    const reply = await send(fx.gw.url, `/echo/a/b?x=1&api_key=${fx.apiKey}`, {
      headers: { 'user-agent': 'tester/1', referer: 'https://ref.example/', origin: 'https://app.example.org' },
    });
    const entry = await entryFor(String(reply.headers['x-api-umbrella-request-id']));
    expect(entry).toMatchObject({
      request_at: clock.now(),
      request_method: 'GET',
      request_scheme: 'http',
      request_path: '/echo/a/b',
      request_url_query: 'x=1&api_key=[REDACTED]',
      request_ip: '127.0.0.1',
      request_user_agent: 'tester/1',
      request_referer: 'https://ref.example/',
      request_origin: 'https://app.example.org',
      response_status: 200,
      response_content_type: 'application/json',
      api_backend_id: backendId,
      user_id: fx.userId,
      user_email: 'fixture@example.com',
      gatekeeper_denied_code: null,
    });
    expect(entry!.request_host).toBe(new URL(fx.gw.url).host);
    expect(entry!.request_size).toBeGreaterThan(50);
    expect(entry!.response_size).toBeGreaterThan(reply.text.length);
    expect(entry!.upstream_time).toBeGreaterThan(0);
    expect(entry!.response_time).toBeGreaterThanOrEqual(entry!.upstream_time!);
    expect(entry!.gateway_overhead).toBeCloseTo(entry!.response_time - entry!.upstream_time!, 2);
  });

  it("records a client that left before the answer as 499, nginx's status for it, not the 200 it never got", async () => {
    const arrived = new Promise<void>((resolve) => (held = resolve));
    const client = httpRequest(`${fx.gw.url}/echo/held/x?api_key=${fx.apiKey}`);
    client.on('error', () => undefined);
    client.end();
    await arrived;
    client.destroy();
    let entry: AnalyticsEntry | undefined;
    await expect.poll(() => (entry = loggedEntries().find((row) => row.request_path === '/echo/held/x')), { timeout: 2_000, interval: 10 }).toBeDefined();
    expect([entry!.response_status, entry!.gatekeeper_denied_code]).toEqual([499, null]);
  });

  it('records a UTF-8 user agent and referer as the text they are', async () => {
    const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const reply = await send(fx.gw.url, `/echo/utf8?api_key=${fx.apiKey}`, { headers: { 'user-agent': bytes('café/1.0 日本'), referer: bytes('https://例え.jp/ü') } });
    const entry = await entryFor(String(reply.headers['x-api-umbrella-request-id']));
    expect([entry!.request_user_agent, entry!.request_referer]).toEqual(['café/1.0 日本', 'https://例え.jp/ü']);
  });

  it('records the client named by a trusted proxy (loopback) as request_ip', async () => {
    const reply = await send(fx.gw.url, '/echo/proxied', { headers: { 'X-Api-Key': fx.apiKey, 'x-forwarded-for': '203.0.113.9' } });
    expect(reply.echoed.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
    const entry = await entryFor(String(reply.headers['x-api-umbrella-request-id']));
    expect(entry!.request_ip).toBe('203.0.113.9');
  });

  it("records a denied request with the lowercase code, no upstream time and the unknown key's preview", async () => {
    const reply = await send(fx.gw.url, '/echo/denied?api_key=not-a-valid-key');
    const entry = await entryFor(String(reply.headers['x-api-umbrella-request-id']));
    expect(entry).toMatchObject({
      response_status: 403,
      response_content_type: 'application/json',
      gatekeeper_denied_code: 'api_key_invalid',
      request_url_query: 'api_key=[REDACTED]',
      upstream_time: null,
      user_id: null,
      api_key_preview: 'not-a-...',
    });
    const missing = await send(fx.gw.url, '/echo/denied');
    expect(await entryFor(String(missing.headers['x-api-umbrella-request-id']))).toMatchObject({ gatekeeper_denied_code: 'api_key_missing', api_key_preview: null });
  });

  it('records the user of a known key that is refused (disabled, expired, unverified, or over HTTP in an HTTPS transition), as API Umbrella does', async () => {
    await fx.gw.publishBackend(
      echoBackend(fx.echo, {
        url_matches: [{ frontend_prefix: '/strict/', backend_prefix: '/' }],
        settings: { api_key_verification_level: 'required_email', require_https: 'transition_return_error', require_https_transition_start_at: '2013-01-01T00:00:00Z' },
      }),
    );
    const disabled = await fx.gw.createUser({ email: 'off@example.com', enabled: false });
    const expired = await fx.gw.createUser({ email: 'expired@example.com', expires_at: new Date(clock.now()).toISOString() });
    const unverified = await fx.gw.createUser({ email: 'unverified@example.com', email_verified: false });
    const plain = await fx.gw.createUser({ email: 'plain@example.com' });
    for (const [user, code] of [[disabled, 'api_key_disabled'], [expired, 'api_key_expired'], [unverified, 'api_key_unverified'], [plain, 'https_required']] as const) {
      const reply = await send(fx.gw.url, '/strict/x', { headers: { 'X-Api-Key': user.apiKey } });
      const entry = await entryFor(String(reply.headers['x-api-umbrella-request-id']));
      expect(entry, code).toMatchObject({ gatekeeper_denied_code: code, user_id: user.id, api_key_preview: `${user.apiKey.slice(0, 6)}...` });
    }
  });

  it("records the Content-Type the client got: a backend's override, an error's negotiated format, none for a client that left first", async () => {
    await fx.gw.publishBackend(
      echoBackend(fx.echo, {
        url_matches: [{ frontend_prefix: '/typed/', backend_prefix: '/' }],
        settings: { override_response_headers: [{ key: 'Content-Type', value: 'application/vnd.example+json' }] },
      }),
    );
    const overridden = await send(fx.gw.url, '/typed/x', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(overridden.headers['content-type']).toBe('application/vnd.example+json');
    const xml = await send(fx.gw.url, '/echo/denied.xml');
    const logged = await Promise.all([overridden, xml].map((reply) => entryFor(String(reply.headers['x-api-umbrella-request-id']))));
    expect(logged.map((entry) => entry!.response_content_type)).toEqual(['application/vnd.example+json', xml.headers['content-type']]);
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    expect(loggedEntries().find((row) => row.request_path === '/echo/held/x')!.response_content_type).toBeNull();
  });

  it('records nothing for NOT_FOUND or a backend with disable_analytics', async () => {
    const before = loggedEntries().length;
    await send(fx.gw.url, '/unmatched/path');
    await send(fx.gw.url, '/quiet/x', { headers: { 'X-Api-Key': fx.apiKey } });
    const marker = await send(fx.gw.url, '/echo/marker', { headers: { 'X-Api-Key': fx.apiKey } });
    await entryFor(String(marker.headers['x-api-umbrella-request-id']));
    expect(loggedEntries().length).toBe(before + 1);
  });
});
