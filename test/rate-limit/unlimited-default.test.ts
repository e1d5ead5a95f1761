// API Umbrella's default_api_backend_settings.rate_limit_mode: unlimited, a
// gateway-wide unlimited default, with its rate_limits written as it ships
// them (distributed, accuracy). Real sockets through the real gateway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ManualClock } from '../../src/lib/clock.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { backendOnHost } from './support.js';

const HOUR = 3_600_000;
const twoPerHour = { duration: HOUR, limit_by: 'api_key', limit: 2, response_headers: true } as const;

let gateway: TestGateway;
let upstream: EchoUpstream;
let hosts = 0;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  const asShipped = { duration: HOUR, accuracy: 60_000, limit_by: 'apiKey', limit_to: 2, distributed: true, response_headers: true };
  const defaults = { rate_limit_mode: 'unlimited', rate_limits: [asShipped] };
  gateway = await startTestGateway({ default_api_backend_settings: defaults }, { clock: new ManualClock(Date.UTC(2026, 0, 1)) });
});

afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
});

/** Publishes a backend on a fresh frontend host (its own counters); answers that host. */
async function backend(settings: Record<string, unknown> = {}): Promise<string> {
  hosts += 1;
  const host = `unlimited-default-${hosts}.example.test`;
  await gateway.publishBackend(backendOnHost(host, upstream.port, settings));
  return host;
}

/** `count` calls in a row: each one's status and X-RateLimit-Limit. */
async function calls(host: string, apiKey: string, count: number): Promise<[number, string | undefined][]> {
  const seen: [number, string | undefined][] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await request(`${gateway.url}/hello`, { headers: { host, 'x-api-key': apiKey } });
    await response.body.dump();
    seen.push([response.statusCode, response.headers['x-ratelimit-limit'] as string | undefined]);
  }
  return seen;
}

const UNLIMITED = Array(5).fill([200, undefined]);

describe('default_api_backend_settings.rate_limit_mode: unlimited', () => {
  it('leaves a backend without a mode of its own unlimited, without rate limit headers', async () => {
    const host = await backend();
    expect(await calls(host, (await gateway.createUser()).apiKey, 5)).toEqual(UNLIMITED);
  });

  it('leaves a user whose settings have a null mode unlimited too', async () => {
    const host = await backend();
    const { apiKey } = await gateway.createUser({ settings: { rate_limit_mode: null, rate_limits: [], allowed_ips: [], allowed_referers: [] } });
    expect(await calls(host, apiKey, 5)).toEqual(UNLIMITED);
  });

  it("still applies a user's own custom limits and a backend's", async () => {
    const user = await gateway.createUser({ settings: { rate_limit_mode: 'custom', rate_limits: [twoPerHour], allowed_ips: [], allowed_referers: [] } });
    expect((await calls(await backend(), user.apiKey, 3)).map(([status]) => status)).toEqual([200, 200, 429]);
    const limited = await backend({ rate_limit_mode: 'custom', rate_limits: [twoPerHour] });
    expect((await calls(limited, (await gateway.createUser()).apiKey, 3)).map(([status]) => status)).toEqual([200, 200, 429]);
  });
});
