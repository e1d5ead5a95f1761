import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELDS } from '../../src/analytics/fields.js';
import { DEFAULT_RULES } from '../../src/analytics/query/filter-rules.js';
import { entry } from './fixtures.js';
import { EVERYTHING, startAnalyticsFixture, type AnalyticsFixture } from './support.js';

let fx: AnalyticsFixture;
const now = Date.now();

beforeAll(async () => {
  fx = await startAnalyticsFixture();
  const { analytics } = fx.gw.context;
  for (let index = 0; index < 30; index++) {
    analytics.record(entry({ request_id: `s${index}`, request_at: now - index * 1_000, response_time: index, user_id: `u${index % 3}`, user_email: `u${index % 3}@example.com`, request_path: `/stats/${index}` }));
  }
  analytics.record(entry({ request_id: 'denied', request_at: now, gatekeeper_denied_code: 'api_key_invalid', user_id: null, user_email: null }));
  analytics.flush();
});
afterAll(() => fx.close());

describe('/admin/stats authentication', () => {
  it.each(['/admin/stats/logs.json', '/admin/stats/logs.csv', '/admin/stats/summary.json', '/admin/stats/search.json', '/admin/stats/users.json', '/admin/stats/users.csv'])('%s needs an admin token or session', async (path) => {
    const anonymous = await request(`${fx.gw.url}${path}`);
    expect(anonymous.statusCode).toBe(401);
    expect(await anonymous.body.json()).toEqual({ error: 'You need to sign in or sign up before continuing.' });
    const wrong = await request(`${fx.gw.url}${path}`, { headers: { 'X-Admin-Auth-Token': 'not-a-token' } });
    expect(wrong.statusCode).toBe(401);
    await wrong.body.dump();
    expect((await fx.stats(path)).status).toBe(200);
  });

  it('accepts the web admin session too', async () => {
    const page = await fx.page('/admin/stats/summary.json');
    expect(page.status).toBe(200);
    expect(JSON.parse(page.text).hits).toBe(31);
  });
});

describe('GET /admin/stats/logs.json', () => {
  it('answers recordsTotal, recordsFiltered and the entries with every logged field, denied ones too without a query, as API Umbrella', async () => {
    const { status, body } = await fx.stats('/admin/stats/logs.json', { length: '5' });
    expect(status).toBe(200);
    expect(body.recordsTotal).toBe(31);
    expect(body.recordsFiltered).toBe(31);
    expect(body.data).toHaveLength(5);
    // Every logged field, and API Umbrella's request_url.
    expect(Object.keys(body.data[0]).sort()).toEqual([...FIELDS.map((info) => info.name), 'request_url'].sort());
    expect(body.data.map((row: { request_id: string }) => row.request_id)).toEqual(['denied', 's0', 's1', 's2', 's3']);
    expect((await fx.stats('/admin/stats/logs.json', { query: '', length: '1' })).body.recordsTotal).toBe(31);
    // The pages' default filter, as their links spell it out.
    const hidden = await fx.stats('/admin/stats/logs.json', { query: JSON.stringify(DEFAULT_RULES), length: '5' });
    expect(hidden.body.recordsTotal).toBe(30);
    expect(hidden.body.data.map((row: { request_id: string }) => row.request_id)).toEqual(['s0', 's1', 's2', 's3', 's4']);
  });

  it("answers DataTables' draw counter back, as API Umbrella's does (0 without one), here and in users.json", async () => {
    expect((await fx.stats('/admin/stats/logs.json', { length: '1', draw: '7' })).body.draw).toBe(7);
    expect((await fx.stats('/admin/stats/logs.json', { length: '1' })).body.draw).toBe(0);
    expect((await fx.stats('/admin/stats/users.json', { draw: '3' })).body.draw).toBe(3);
  });

  it('filters, searches, pages and sorts', async () => {
    const page = await fx.stats('/admin/stats/logs.json', {
      query: JSON.stringify([{ field: 'user_id', operator: 'equal', value: 'u1' }]),
      order: 'response_time:asc',
      start: '2',
      length: '3',
    });
    expect(page.body.recordsFiltered).toBe(10);
    expect(page.body.data.map((row: { response_time: number }) => row.response_time)).toEqual([7, 10, 13]);
    const search = await fx.stats('/admin/stats/logs.json', { search: '/stats/2' });
    expect(search.body.recordsFiltered).toBe(11);
    const all = await fx.stats('/admin/stats/logs.json', EVERYTHING);
    expect(all.body.recordsFiltered).toBe(31);
  });

  it.each([
    [{ query: '[{"field":"nope","operator":"equal","value":"x"}]' }, 'Unknown filter field "nope"'],
    [{ query: '[{"field":"request_path","operator":"sounds_like","value":"x"}]' }, 'Unknown filter operator "sounds_like"'],
    [{ query: '[{"field":"request_path","operator":"constructor","value":"x"}]' }, 'Unknown filter operator "constructor"'],
    [{ query: '[{"field":"response_status","operator":"greater","value":{"toString":1}}]' }, 'response_status compares numbers'],
    [{ start_at: '2026-13-01', end_at: '2026-12-31' }, 'start_at must be a date'],
    [{ start_at: '2024-01-01', end_at: '2026-01-01' }, 'The date range may span at most one year'],
  ])('answers 400 with a clear message for %j', async (params, message) => {
    const { status, body } = await fx.stats('/admin/stats/logs.json', params);
    expect(status).toBe(400);
    expect(body.error).toContain(message);
  });

  it('treats SQL in a filter value as a value', async () => {
    const { status, body } = await fx.stats('/admin/stats/logs.json', { query: JSON.stringify([{ field: 'request_path', operator: 'equal', value: "' OR 1=1 --" }]) });
    expect(status).toBe(200);
    expect(body.recordsFiltered).toBe(0);
  });
});

describe('GET /admin/stats/summary.json', () => {
  it('answers the highlights, top users and IPs and the chart series, of every request without a query', async () => {
    const all = await fx.stats('/admin/stats/summary.json', { range: 'last_7_days' });
    expect(all.body).toMatchObject({ hits: 31, unique_users: 3, top_ips: [{ request_ip: '192.0.2.1', hits: 31 }] });
    const { body } = await fx.stats('/admin/stats/summary.json', { range: 'last_7_days', query: JSON.stringify(DEFAULT_RULES) });
    expect(body).toMatchObject({ interval: 'day', hits: 30, unique_users: 3, unique_ips: 1, average_response_time: 14.5, dropped_entries: 0 });
    expect(body.top_users[0]).toMatchObject({ hits: 10 });
    expect(body.top_ips).toEqual([{ request_ip: '192.0.2.1', hits: 30 }]);
    expect(body.chart).toHaveLength(7);
    expect(body.chart.reduce((sum: number, point: { hits: number }) => sum + point.hits, 0)).toBe(30);
  });
});

describe('CSV downloads', () => {
  it('streams every matching entry with a header row and ISO times', async () => {
    const { status, text, headers } = await fx.stats('/admin/stats/logs.csv', EVERYTHING);
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(headers['content-disposition']).toMatch(/^attachment; filename="logs-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe(FIELDS.map((info) => info.name).join(','));
    expect(lines).toHaveLength(32);
    expect(lines[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z,/);
  });

  it('lists hits and last request per user', async () => {
    const { text } = await fx.stats('/admin/stats/users.csv');
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe('Email,First Name,Last Name,Website,Registration Source,Signed Up (UTC),Hits,Last Request (UTC),Use Description');
    expect(lines.slice(1).map((line) => line.split(',')[6])).toEqual(['10', '10', '10']);
    const json = await fx.stats('/admin/stats/users.json', { length: '2' });
    expect(json.body).toMatchObject({ recordsTotal: 3, recordsFiltered: 3 });
    expect(json.body.data).toHaveLength(2);
  });
});
