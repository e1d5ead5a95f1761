// An hourly limit's counts outlive a restart: a graceful stop keeps them in
// the store and the next start reads them back (kept-counts.ts), so an
// upgrade or a `systemctl restart` does not give every key a fresh hour.
// Short windows (a per-second limit) are over before a restart is: not kept.
// (Found by the rate-limit probe: 7 of 12 used, then 11 left after a restart.)
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, startWithConfig, type TestGateway } from '../helpers/gateway.js';
import { backendOnHost } from './support.js';

const HOUR = 3600_000;
const HOST = 'kept.example.test';
let upstream: EchoUpstream;
let gateway: TestGateway | null = null;
const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));

beforeAll(async () => {
  upstream = await startEchoUpstream();
});
afterAll(async () => {
  await gateway?.stop();
  await upstream.close();
});

async function remaining(gw: TestGateway, apiKey: string): Promise<[number, string | undefined, string | undefined]> {
  const reply = await request(`${gw.url}/x`, { headers: { host: HOST, 'x-api-key': apiKey } });
  await reply.body.dump();
  const header = (name: string) => reply.headers[name] as string | undefined;
  return [reply.statusCode, header('x-ratelimit-remaining'), header('x-ratelimit-limit')];
}

describe('rate-limit counts over a restart', () => {
  it("keeps an hourly limit's counts and drops a per-second one's", async () => {
    const limits = [
      { duration: HOUR, limit_by: 'api_key', limit: 12, response_headers: true },
      { duration: 1000, limit_by: 'api_key', limit: 100, response_headers: false },
    ];
    gateway = await startTestGateway({}, { clock });
    await gateway.publishBackend(backendOnHost(HOST, upstream.port, { rate_limits: limits, rate_limit_mode: 'custom' }));
    const { apiKey } = await gateway.createUser();
    for (let sent = 1; sent < 7; sent++) await remaining(gateway, apiKey);
    expect(await remaining(gateway, apiKey)).toEqual([200, '5', '12']);
    const config = gateway.context.config;
    await gateway.stop();

    clock.advance(5 * 60_000);
    gateway = await startWithConfig(config, { clock });
    expect(await remaining(gateway, apiKey)).toEqual([200, '4', '12']);
    const rows = gateway.context.db.prepare('SELECT counter, expires_at FROM rate_limit_counts').all() as { counter: string; expires_at: number }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.expires_at - clock.now() > 60_000)).toBe(true);
  });
});
