// End to end: requests through the real gateway show up in /admin/stats
// within a second, with the right fields; nothing accepted is lost on stop.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from '../../src/analytics/query/filter-rules.js';
import { openStore } from '../../src/store/db.js';
import { EVERYTHING, startAnalyticsFixture, type AnalyticsFixture } from './support.js';

async function loggedWithin1s(fx: AnalyticsFixture, search: string): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await expect
    .poll(async () => {
      const { body } = await fx.stats('/admin/stats/logs.json', { ...EVERYTHING, search });
      found = body.data[0];
      return body.recordsFiltered;
    }, { timeout: 1_000, interval: 25 })
    .toBe(1);
  return found!;
}

describe('analytics through the gateway', () => {
  let fx: AnalyticsFixture;
  beforeAll(async () => {
    fx = await startAnalyticsFixture({ trusted_proxies: ['127.0.0.3'] });
    // The reader thread starts on the first query (and the writer thread is up once the fixture is, both from TypeScript sources here, compiling as they load): the 1 s bounds below are the log's, not those starts'.
    await fx.stats('/admin/stats/logs.json');
  });
  afterAll(() => fx.close());

  it('logs an allowed request with its fields within 1 s', async () => {
    const response = await fx.call(`/echo/allowed?x=1&api_key=${fx.apiKey}`, { 'user-agent': 'e2e-agent/1', referer: 'https://ref.example/page' });
    expect(response.status).toBe(200);
    const entry = await loggedWithin1s(fx, '/echo/allowed');
    expect(entry).toMatchObject({
      request_method: 'GET',
      request_scheme: 'http',
      request_host: new URL(fx.gw.url).host,
      request_path: '/echo/allowed',
      request_url_query: 'x=1&api_key=[REDACTED]',
      request_ip: '127.0.0.1',
      request_user_agent: 'e2e-agent/1',
      request_referer: 'https://ref.example/page',
      response_status: 200,
      api_backend_id: fx.backendId,
      user_id: fx.userId,
      user_email: 'caller@example.com',
      gatekeeper_denied_code: null,
    });
    expect(entry.request_id).toMatch(/\S/);
    expect(entry.api_key_preview).toEqual(expect.any(String));
    expect(entry.request_size).toBeGreaterThan(0);
    expect(entry.response_size).toBeGreaterThan(0);
    expect(entry.upstream_time).toBeGreaterThanOrEqual(0);
    expect(entry.response_time).toBeGreaterThanOrEqual(entry.upstream_time as number);
    expect(Math.abs((entry.request_at as number) - Date.now())).toBeLessThan(10_000);
  });

  it("logs a denied request with its lowercase code within 1 s: in logs.json without a query, as API Umbrella's, hidden by the pages' default filter", async () => {
    const response = await fx.call('/echo/denied-without-key');
    expect(response.status).toBe(403);
    const entry = await loggedWithin1s(fx, '/echo/denied-without-key');
    expect(entry).toMatchObject({ response_status: 403, gatekeeper_denied_code: 'api_key_missing', user_id: null, upstream_time: null });
    const withoutQuery = await fx.stats('/admin/stats/logs.json', { search: '/echo/denied-without-key' });
    expect(withoutQuery.body.recordsFiltered).toBe(1);
    const pageDefault = await fx.stats('/admin/stats/logs.json', { search: '/echo/denied-without-key', query: JSON.stringify(DEFAULT_RULES) });
    expect(pageDefault.body.recordsFiltered).toBe(0);
  });

  it("links the Filter Logs page's Download CSV to the page's rows: its default filter spelled out", async () => {
    await fx.call(`/echo/page-csv/allowed?api_key=${fx.apiKey}`);
    await fx.call('/echo/page-csv/denied');
    await loggedWithin1s(fx, '/echo/page-csv/denied');
    await loggedWithin1s(fx, '/echo/page-csv/allowed');
    const page = await fx.page('/admin/analytics/logs?search=%2Fecho%2Fpage-csv%2F');
    expect(page.status).toBe(200);
    const pagePaths = [...page.text.matchAll(/<td class="col-request_path">([^<]*)<\/td>/g)].map((match) => match[1]);
    expect(pagePaths).toEqual(['/echo/page-csv/allowed']);
    const csvUrl = /href="(\/admin\/stats\/logs\.csv\?[^"]*)" role="button"[^>]*data-testid="download-csv"/.exec(page.text)![1]!.replaceAll('&amp;', '&');
    const csv = await fx.page(csvUrl);
    const lines = csv.text.trim().split('\n');
    const pathColumn = lines[0]!.split(',').indexOf('request_path');
    expect(lines.slice(1).map((line) => line.split(',')[pathColumn])).toEqual(pagePaths);
  });

  it('stores every api_key value as [REDACTED], never the key', async () => {
    await fx.call(`/echo/redacted?api_key=${fx.apiKey}&foo_api_key=kept&API_KEY=${fx.apiKey}x`);
    const entry = await loggedWithin1s(fx, '/echo/redacted');
    expect(entry.request_url_query).toBe('api_key=[REDACTED]&foo_api_key=kept&API_KEY=[REDACTED]');
    const row = fx.gw.context.db.prepare("SELECT * FROM analytics_logs WHERE request_path = '/echo/redacted'").get();
    expect(JSON.stringify(row)).not.toContain(fx.apiKey);
  });

  it('stores the api_key in a Referer as [REDACTED]: a page whose address holds its key names it in every call', async () => {
    await fx.call('/echo/referred', { 'x-api-key': fx.apiKey, referer: `https://docs.example/try?api_key=${fx.apiKey}&city=Paris` });
    expect((await loggedWithin1s(fx, '/echo/referred')).request_referer).toBe('https://docs.example/try?api_key=[REDACTED]&city=Paris');
  });

  it('takes the client IP from X-Forwarded-For only through a trusted proxy', async () => {
    const headers = { 'x-api-key': fx.apiKey, 'x-forwarded-for': '203.0.113.9' };
    await fx.call('/echo/untrusted-proxy', headers, '127.0.0.2');
    await fx.call('/echo/trusted-proxy', headers, '127.0.0.3');
    expect((await loggedWithin1s(fx, '/echo/untrusted-proxy')).request_ip).toBe('127.0.0.2');
    expect((await loggedWithin1s(fx, '/echo/trusted-proxy')).request_ip).toBe('203.0.113.9');
  });

  it("reads X-Forwarded-For as nginx's realip does: a hop's port dropped, a hop that is no address ending the walk", async () => {
    await fx.call('/echo/hop-with-port', { 'x-api-key': fx.apiKey, 'x-forwarded-for': '203.0.113.9:50312' }, '127.0.0.3');
    await fx.call('/echo/ipv6-hop-with-port', { 'x-api-key': fx.apiKey, 'x-forwarded-for': '[2001:db8::9]:443' }, '127.0.0.3');
    await fx.call('/echo/garbage-hop', { 'x-api-key': fx.apiKey, 'x-forwarded-for': '203.0.113.9, unknown' }, '127.0.0.3');
    expect((await loggedWithin1s(fx, '/echo/hop-with-port')).request_ip).toBe('203.0.113.9');
    expect((await loggedWithin1s(fx, '/echo/ipv6-hop-with-port')).request_ip).toBe('2001:db8::9');
    expect((await loggedWithin1s(fx, '/echo/garbage-hop')).request_ip).toBe('127.0.0.3');
  });
});

describe('analytics on shutdown', () => {
  it('writes every accepted entry before the store closes', async () => {
    // A flush interval far beyond the test: only the shutdown flush can write these.
    const fx = await startAnalyticsFixture({ analytics: { flush_interval_ms: 60_000 } });
    const dataDir = fx.gw.context.config.data_dir;
    const responses = await Promise.all(Array.from({ length: 200 }, (_, index) => fx.call(`/echo/shutdown/${index}`, { 'x-api-key': fx.apiKey })));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    await fx.close();
    const db = openStore(join(dataDir));
    expect(db.prepare("SELECT count(*) FROM analytics_logs WHERE request_path LIKE '/echo/shutdown/%'").pluck().get()).toBe(200);
    db.close();
  });
});
