// Rate limits end to end: real sockets through the real gateway to a real
// echo upstream, with time moved on a ManualClock instead of slept through.
// Each test publishes its own backend on its own frontend host, so their
// counters (bucketed per host) never meet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ManualClock } from '../../src/lib/clock.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { backendOnHost } from './support.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
/** The gateway-wide default in this file: 2 per hour per key, with headers, so a third request shows the default applies. */
const DEFAULT_LIMITS = [{ duration: HOUR, limit_by: 'api_key', limit: 2, response_headers: true }];

let gateway: TestGateway;
let upstream: EchoUpstream;
let clock: ManualClock;
let hosts = 0;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  clock = new ManualClock(Date.UTC(2026, 0, 1));
  gateway = await startTestGateway(
    { trusted_proxies: ['10.0.0.0/8'], default_api_backend_settings: { rate_limits: DEFAULT_LIMITS } },
    { clock },
  );
});

afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Call {
  key?: string;
  forwardedFor?: string;
  path?: string;
}

/** Publishes a backend on a fresh frontend host; answers a function that calls it. */
async function backend(settings: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  hosts += 1;
  const host = `limits-${hosts}.example.test`;
  await gateway.publishBackend(backendOnHost(host, upstream.port, settings, extra));
  return (call: Call = {}) => send(host, call);
}

async function send(host: string, { key, forwardedFor, path = '/hello' }: Call): Promise<Reply> {
  const headers: Record<string, string> = { host };
  if (key !== undefined) headers['x-api-key'] = key;
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  const response = await request(`${gateway.url}${path}`, { headers });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

async function statuses(call: () => Promise<Reply>, count: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i += 1) seen.push((await call()).status);
  return seen;
}

function custom(...limits: { duration: number; limit_by: 'ip' | 'api_key'; limit: number; response_headers?: boolean }[]) {
  return { rate_limit_mode: 'custom', rate_limits: limits.map((limit) => ({ response_headers: false, ...limit })) };
}

async function key(settings?: Record<string, unknown>): Promise<string> {
  const user = await gateway.createUser(settings === undefined ? {} : { settings: { allowed_ips: [], allowed_referers: [], rate_limits: [], ...settings } });
  return user.apiKey;
}

describe('rate limits through the gateway', () => {
  it('refuses the 11th request of a 10/hour limit with 429 OVER_RATE_LIMIT while another key still passes', async () => {
    const call = await backend(custom({ duration: HOUR, limit_by: 'api_key', limit: 10 }));
    const [first, second] = [await key(), await key()];
    expect(await statuses(() => call({ key: first }), 10)).toEqual(Array(10).fill(200));
    const refused = await call({ key: first });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/json');
    expect(JSON.parse(refused.body)).toEqual({
      error: { code: 'OVER_RATE_LIMIT', message: expect.stringMatching(/^You have exceeded your rate limit\. Try again later or contact us at /) },
    });
    expect((await call({ key: second })).status).toBe(200);
  });

  it('renders the refusal in the negotiated format', async () => {
    const call = await backend(custom({ duration: HOUR, limit_by: 'api_key', limit: 1 }));
    const apiKey = await key();
    await call({ key: apiKey });
    const refused = await call({ key: apiKey, path: '/hello.xml' });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/xml');
    expect(refused.body).toContain('<code>OVER_RATE_LIMIT</code>');
  });

  it('counts X-RateLimit-Remaining down to 0, then refuses with 0, and never forwards the refused request', async () => {
    const call = await backend(custom({ duration: HOUR, limit_by: 'api_key', limit: 3, response_headers: true }));
    const apiKey = await key();
    const before = upstream.requests.length;
    const replies = [await call({ key: apiKey }), await call({ key: apiKey }), await call({ key: apiKey }), await call({ key: apiKey })];
    expect(replies.map((reply) => [reply.status, reply.headers['x-ratelimit-limit'], reply.headers['x-ratelimit-remaining']])).toEqual([
      [200, '3', '2'],
      [200, '3', '1'],
      [200, '3', '0'],
      [429, '3', '0'],
    ]);
    expect(upstream.requests.length - before).toBe(3);
  });

  it('answers a refusal by a limit without headers with X-RateLimit-Remaining 0, the header limit still named', async () => {
    const call = await backend(custom({ duration: 10 * SECOND, limit_by: 'api_key', limit: 3 }, { duration: HOUR, limit_by: 'api_key', limit: 10, response_headers: true }));
    const apiKey = await key();
    const replies = [];
    for (let i = 0; i < 4; i += 1) replies.push(await call({ key: apiKey }));
    expect(replies.map((reply) => [reply.status, reply.headers['x-ratelimit-limit'], reply.headers['x-ratelimit-remaining']])).toEqual([
      [200, '10', '9'],
      [200, '10', '8'],
      [200, '10', '7'],
      // API Umbrella's: the refusing limit has 0 left, though the hourly one has 7.
      [429, '10', '0'],
    ]);
  });

  it('applies the configured default limits to a backend without its own', async () => {
    const call = await backend();
    const apiKey = await key();
    expect((await call({ key: apiKey })).headers['x-ratelimit-remaining']).toBe('1');
    expect((await call({ key: apiKey })).status).toBe(200);
    expect((await call({ key: apiKey })).status).toBe(429);
  });

  it('limits by the client IP from a trusted proxy’s X-Forwarded-For, and by the untrusted hop otherwise', async () => {
    const call = await backend(custom({ duration: HOUR, limit_by: 'ip', limit: 2 }));
    const apiKey = await key();
    // 10.0.0.0/8 is trusted: the client is the address before it.
    const viaProxy = (client: string) => call({ key: apiKey, forwardedFor: `${client}, 10.1.2.3` });
    expect(await statuses(() => viaProxy('198.51.100.7'), 3)).toEqual([200, 200, 429]);
    expect((await viaProxy('198.51.100.8')).status).toBe(200);
    // 192.0.2.50 is not trusted, so it is the client whatever it claims to forward for.
    const spoofing = (claimed: string) => call({ key: apiKey, forwardedFor: `${claimed}, 192.0.2.50` });
    expect([(await spoofing('203.0.113.1')).status, (await spoofing('203.0.113.2')).status, (await spoofing('203.0.113.3')).status]).toEqual([200, 200, 429]);
  });

  it("counts a user's limits by api_key per client IP when the user is throttled by IP (a shared key), as API Umbrella's throttle_by_ip", async () => {
    const call = await backend(custom({ duration: HOUR, limit_by: 'api_key', limit: 2 }));
    const { id, apiKey: shared } = await gateway.createUser({ throttle_by_ip: true });
    const from = (client: string) => call({ key: shared, forwardedFor: `${client}, 10.1.2.3` });
    expect(await statuses(() => from('198.51.100.40'), 3)).toEqual([200, 200, 429]);
    expect(await statuses(() => from('198.51.100.41'), 3)).toEqual([200, 200, 429]);
    // Turned off, the key's requests count together from the next one on, wherever they come from.
    expect((await gateway.adminApi('PUT', `/users/${id}`, { user: { throttle_by_ip: false } })).status).toBe(200);
    expect([(await from('198.51.100.42')).status, (await from('198.51.100.43')).status, (await from('198.51.100.44')).status]).toEqual([200, 200, 429]);
  });

  it('limits by api_key per IP when the backend needs no key', async () => {
    const call = await backend({ disable_api_key: true, ...custom({ duration: HOUR, limit_by: 'api_key', limit: 2 }) });
    expect(await statuses(() => call({ forwardedFor: '198.51.100.20' }), 3)).toEqual([200, 200, 429]);
    expect((await call({ forwardedFor: '198.51.100.21' })).status).toBe(200);
  });

  it('uses no quota for requests refused before the limits (403)', async () => {
    const call = await backend(custom({ duration: HOUR, limit_by: 'ip', limit: 2 }));
    const forwardedFor = '198.51.100.30';
    expect(await statuses(() => call({ forwardedFor }), 5)).toEqual(Array(5).fill(403));
    const apiKey = await key();
    expect(await statuses(() => call({ key: apiKey, forwardedFor }), 3)).toEqual([200, 200, 429]);
  });

  describe('unlimited', () => {
    it('at the backend: no limit and no headers', async () => {
      const call = await backend({ rate_limit_mode: 'unlimited' });
      const apiKey = await key();
      const replies = [await call({ key: apiKey }), await call({ key: apiKey }), await call({ key: apiKey }), await call({ key: apiKey })];
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
      expect(replies.some((reply) => 'x-ratelimit-limit' in reply.headers || 'x-ratelimit-remaining' in reply.headers)).toBe(false);
    });

    it('at a sub-setting, while the rest of the backend keeps its limits', async () => {
      const call = await backend({}, { sub_settings: [{ http_method: 'any', regex: '^/free/', settings: { rate_limit_mode: 'unlimited' } }] });
      const apiKey = await key();
      expect(await statuses(() => call({ key: apiKey, path: '/free/a' }), 4)).toEqual([200, 200, 200, 200]);
      expect(await statuses(() => call({ key: apiKey, path: '/paid/a' }), 3)).toEqual([200, 200, 429]);
    });

    it('for a user, over a limited backend', async () => {
      const call = await backend();
      const unlimited = await key({ rate_limit_mode: 'unlimited' });
      const replies = await statuses(() => call({ key: unlimited }), 4);
      expect(replies).toEqual([200, 200, 200, 200]);
      expect('x-ratelimit-limit' in (await call({ key: unlimited })).headers).toBe(false);
    });
  });

  it('lets a user’s own limits win over the backend’s, even an unlimited one', async () => {
    const call = await backend({ rate_limit_mode: 'unlimited' });
    const limited = await key({ rate_limit_mode: 'custom', rate_limits: [{ duration: HOUR, limit_by: 'api_key', limit: 1, response_headers: true }] });
    const first = await call({ key: limited });
    expect([first.status, first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']]).toEqual([200, '1', '0']);
    expect((await call({ key: limited })).status).toBe(429);
  });

  it('keeps separate counters per frontend host, and shares them by rate_limit_bucket_name', async () => {
    const limits = custom({ duration: HOUR, limit_by: 'api_key', limit: 1 });
    const apiKey = await key();
    const [hostA, hostB] = [await backend(limits), await backend(limits)];
    expect([(await hostA({ key: apiKey })).status, (await hostA({ key: apiKey })).status]).toEqual([200, 429]);
    expect((await hostB({ key: apiKey })).status).toBe(200);

    const bucketName = { ...limits, rate_limit_bucket_name: 'shared-bucket' };
    const [sharedA, sharedB] = [await backend(bucketName), await backend(bucketName)];
    expect((await sharedA({ key: apiKey })).status).toBe(200);
    expect((await sharedB({ key: apiKey })).status).toBe(429);
  });

  it('estimates across a window boundary: the previous window counts by how much of it the sliding window covers', async () => {
    const minute = 60 * SECOND;
    const call = await backend(custom({ duration: minute, limit_by: 'api_key', limit: 10, response_headers: true }));
    const apiKey = await key();
    // Start at a window boundary so the arithmetic below is exact.
    clock.set(Math.ceil(clock.now() / minute) * minute);
    expect(await statuses(() => call({ key: apiKey }), 11)).toEqual([...Array(10).fill(200), 429]);
    // A quarter into the next window: 0 + floor(10 × 0.75) = 7, so 3 more pass.
    clock.advance(minute + minute / 4);
    const remaining: unknown[] = [];
    for (let i = 0; i < 4; i += 1) {
      const reply = await call({ key: apiKey });
      remaining.push([reply.status, reply.headers['x-ratelimit-remaining']]);
    }
    expect(remaining).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
  });

  it('answers Retry-After in seconds until a request would pass, and lets it pass then', async () => {
    const window = 15 * SECOND;
    const call = await backend(custom({ duration: window, limit_by: 'api_key', limit: 4 }));
    const apiKey = await key();
    clock.set(Math.ceil(clock.now() / window) * window);
    expect(await statuses(() => call({ key: apiKey }), 4)).toEqual([200, 200, 200, 200]);
    clock.advance(5 * SECOND);
    // Full until the window ends in 10 s; from the next millisecond 4 × (1 − t/15 s) rounds down to 3.
    const refused = await call({ key: apiKey });
    expect([refused.status, refused.headers['retry-after']]).toEqual([429, '11']);
    clock.advance(10 * SECOND);
    const stillRefused = await call({ key: apiKey });
    expect([stillRefused.status, stillRefused.headers['retry-after']]).toEqual([429, '1']);
    clock.advance(1 * SECOND);
    expect((await call({ key: apiKey })).status).toBe(200);
  });
});
