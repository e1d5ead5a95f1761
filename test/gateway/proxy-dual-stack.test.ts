// listen.host "::" serves IPv4 and IPv6 clients on one socket, which names an
// IPv4 client ::ffff:a.b.c.d: the gateway names it a.b.c.d, as it would on an
// IPv4 listener, in what it sends upstream and in its analytics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
let port: number;
beforeAll(async () => {
  fx = await startProxyFixture({ config: { listen: { host: '::', port: 0 } } });
  port = Number(new URL(fx.gw.url).port);
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

function loggedIps(): string[] {
  fx.gw.context.analytics.flush();
  return (fx.gw.context.db.prepare('SELECT request_ip FROM analytics_logs ORDER BY id').all() as Pick<AnalyticsEntry, 'request_ip'>[]).map((row) => row.request_ip);
}

describe('a dual-stack listener', () => {
  it('names IPv4 clients by their IPv4 address and IPv6 clients by theirs', async () => {
    const overIpv4 = await send(`http://127.0.0.1:${port}`, '/echo/v4', { headers: { 'X-Api-Key': fx.apiKey } });
    const overIpv6 = await send(`http://[::1]:${port}`, '/echo/v6', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(overIpv4.echoed.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(overIpv6.echoed.headers['x-forwarded-for']).toBe('::1');
    await expect.poll(loggedIps).toEqual(['127.0.0.1', '::1']);
  });
});
