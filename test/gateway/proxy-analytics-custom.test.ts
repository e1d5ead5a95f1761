// API Umbrella's custom dimensions (its test_analytics_custom_fields.rb): a
// backend's X-Api-Umbrella-Analytics-Custom1..3 response headers are logged
// as response_custom1..3 (400 characters at most) and kept from the client,
// from a cached response too; Custom0 and Custom4 are ordinary headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

let served = 0;
const upstream: CustomHandler = (request, response) => {
  const url = new URL(request.url!, 'http://x');
  if (!url.pathname.startsWith('/backend/dimensions')) return false;
  served++;
  const headers: Record<string, string> = {};
  for (const [name, value] of url.searchParams) headers[name] = value === 'served' ? `served-${served}` : value;
  response.writeHead(200, { 'Content-Type': 'text/plain', ...headers });
  response.end('ok');
  return true;
};

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ upstream, config: { cache: { max_size_mb: 1 } } });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

async function entryOf(requestId: string): Promise<AnalyticsEntry> {
  let found: AnalyticsEntry | undefined;
  await expect
    .poll(() => {
      fx.gw.context.analytics.flush();
      found = fx.gw.context.db.prepare('SELECT * FROM analytics_logs WHERE request_id = ?').get(requestId) as AnalyticsEntry | undefined;
      return found !== undefined;
    })
    .toBe(true);
  return found!;
}

async function call(headers: Record<string, string>) {
  const reply = await send(fx.gw.url, `/echo/dimensions?${new URLSearchParams(headers).toString()}`, { headers: { 'X-Api-Key': fx.apiKey } });
  return { reply, entry: await entryOf(String(reply.headers['x-api-umbrella-request-id'])) };
}

describe('custom analytics dimensions', () => {
  it('logs Custom1..3 and keeps them from the client; Custom0 and Custom4 pass as ordinary headers', async () => {
    const { reply, entry } = await call({ 'X-Api-Umbrella-Analytics-Custom1': 'hello', 'X-Api-Umbrella-Analytics-Custom3': '!', 'X-Api-Umbrella-Analytics-Custom0': 'zero', 'X-Api-Umbrella-Analytics-Custom4': 'four' });
    expect(reply.headers['x-api-umbrella-analytics-custom1']).toBeUndefined();
    expect(reply.headers['x-api-umbrella-analytics-custom3']).toBeUndefined();
    expect([reply.headers['x-api-umbrella-analytics-custom0'], reply.headers['x-api-umbrella-analytics-custom4']]).toEqual(['zero', 'four']);
    expect([entry.response_custom1, entry.response_custom2, entry.response_custom3]).toEqual(['hello', null, '!']);
  });

  it('cuts each to 400 characters', async () => {
    const { entry } = await call({ 'X-Api-Umbrella-Analytics-Custom2': 'B'.repeat(500) });
    expect(entry.response_custom2).toBe('B'.repeat(400));
  });

  it('logs a cached response with the dimensions it was stored with', async () => {
    const headers = { 'Cache-Control': 'max-age=60', 'X-Api-Umbrella-Analytics-Custom1': 'served' };
    const first = await call(headers);
    const second = await call(headers);
    expect([first.reply.headers['x-cache'], second.reply.headers['x-cache']]).toEqual(['MISS', 'HIT']);
    expect(second.reply.headers['x-api-umbrella-analytics-custom1']).toBeUndefined();
    expect(second.entry.response_custom1).toBe(first.entry.response_custom1);
  });
});
