// users.json, users.csv and search.json in API Umbrella's shapes (its
// test/apis/admin/stats/test_users.rb and test_search.rb, and stats.lua),
// over requests sent through a real gateway.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { intervalLabel } from '../../src/analytics/interval-labels.js';
import type { Statistics } from '../../src/analytics/log-queries.js';
import { DEFAULT_RULES } from '../../src/analytics/query/filter-rules.js';
import { searchStats } from '../../src/analytics/search-stats.js';
import { startAnalyticsFixture, type AnalyticsFixture } from './support.js';

const AU_USER_KEYS = ['id', 'email', 'first_name', 'last_name', 'website', 'registration_source', 'created_at', 'hits', 'last_request_at', 'use_description'];
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const today = new Date().toISOString().slice(0, 10);
const dayLabel = (ms: number) => new Date(ms).toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

let fx: AnalyticsFixture;
let ada: { id: string; apiKey: string };
let gone: { id: string; apiKey: string };

/** 16 requests: Ada 12 (from 10 IPs), the fixture's caller 1, a user deleted since 2, and 1 without a key (denied); 13 IPs. */
beforeAll(async () => {
  fx = await startAnalyticsFixture();
  ada = await fx.gw.createUser({ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', website: 'https://ada.example', use_description: 'Engines', registration_source: 'web' });
  gone = await fx.gw.createUser({ email: 'gone@example.com', first_name: 'Gone', registration_source: 'api' });
  const calls: [string | null, string, number][] = [
    [ada.apiKey, '203.0.113.1', 3],
    [fx.apiKey, '203.0.113.2', 1],
    [gone.apiKey, '203.0.113.3', 2],
    [null, '203.0.113.4', 1],
    ...Array.from({ length: 9 }, (_, index): [string, string, number] => [ada.apiKey, `203.0.113.${10 + index}`, 1]),
  ];
  for (const [key, ip, times] of calls) {
    for (let index = 0; index < times; index++) {
      const response = await fx.call(`/echo/au${key === null ? '' : `?api_key=${key}`}`, { 'x-forwarded-for': ip });
      expect(response.status).toBe(key === null ? 403 : 200);
    }
  }
  await vi.waitFor(
    async () => {
      if ((await fx.stats('/admin/stats/logs.json', { length: '1' })).body.recordsTotal !== 16) throw new Error('not logged yet');
    },
    { timeout: 5_000, interval: 50 },
  );
  expect(fx.gw.context.users.delete(gone.id, null)).toBe(true);
});
afterAll(() => fx.close());

/** The user's latest request, as API Umbrella writes times: ISO 8601 to the second. */
async function lastRequestOf(userId: string): Promise<string> {
  const { body } = await fx.stats('/admin/stats/logs.json', { length: '1', query: JSON.stringify([{ field: 'user_id', operator: 'equal', value: userId }]) });
  return `${new Date(body.data[0].request_at as number).toISOString().slice(0, 19)}Z`;
}

function createdAtOf(userId: string): string {
  const stored = fx.gw.context.db.prepare('SELECT created_at FROM api_users WHERE id = ?').pluck().get(userId) as string;
  return `${stored.slice(0, 19)}Z`;
}

describe('GET /admin/stats/logs.json', () => {
  it("gives each entry API Umbrella's request_url: the path and query without the api_key", async () => {
    const { body } = await fx.stats('/admin/stats/logs.json', { length: '1', query: JSON.stringify([{ field: 'user_id', operator: 'equal', value: ada.id }]) });
    expect(body.data[0]).toMatchObject({ request_path: '/echo/au', request_url_query: 'api_key=[REDACTED]', request_url: '/echo/au' });
  });
});

describe('GET /admin/stats/users.json', () => {
  it("answers API Umbrella's fields: the profile from api_users, ISO 8601 times, in DataTables' wrapper", async () => {
    const { status, body } = await fx.stats('/admin/stats/users.json', { start_at: today, end_at: today, length: '10' });
    expect(status).toBe(200);
    expect(body).toEqual({
      draw: 0,
      recordsTotal: 3,
      recordsFiltered: 3,
      data: [
        {
          id: ada.id,
          email: 'ada@example.com',
          first_name: 'Ada',
          last_name: 'Lovelace',
          website: 'https://ada.example',
          registration_source: 'web',
          created_at: createdAtOf(ada.id),
          hits: 12,
          last_request_at: await lastRequestOf(ada.id),
          use_description: 'Engines',
        },
        // Deleted since: the id and email of its requests, nothing else.
        { id: gone.id, email: 'gone@example.com', first_name: null, last_name: null, website: null, registration_source: null, created_at: null, hits: 2, last_request_at: await lastRequestOf(gone.id), use_description: null },
        {
          id: fx.userId,
          email: 'caller@example.com',
          first_name: 'Test',
          last_name: 'User',
          website: null,
          registration_source: 'test',
          created_at: createdAtOf(fx.userId),
          hits: 1,
          last_request_at: await lastRequestOf(fx.userId),
          use_description: null,
        },
      ],
    });
    expect(Object.keys(body.data[0])).toEqual(AU_USER_KEYS);
    expect(body.data[0].created_at).toMatch(ISO_SECONDS);
    expect(body.data[0].last_request_at).toMatch(ISO_SECONDS);
  });

  it('pages and sorts as before, joining the profiles of the page only', async () => {
    const page = await fx.stats('/admin/stats/users.json', { order: 'hits:asc', start: '1', length: '1', draw: '4' });
    expect(page.body).toMatchObject({ draw: 4, recordsTotal: 3, recordsFiltered: 3, data: [{ id: gone.id, hits: 2 }] });
    expect(page.body.data).toHaveLength(1);
    const empty = await fx.stats('/admin/stats/users.json', { start_at: '2000-01-13', end_at: '2000-01-18', length: '10' });
    expect(empty.body).toEqual({ data: [], draw: 0, recordsFiltered: 0, recordsTotal: 0 });
  });
});

describe('GET /admin/stats/users.csv', () => {
  it("lists API Umbrella's columns, times as YYYY-MM-DD HH:MM:SS, in a file named as API Umbrella names it", async () => {
    const { status, text, headers } = await fx.stats('/admin/stats/users.csv', { start_at: today, end_at: today });
    expect(status).toBe(200);
    expect(headers['content-disposition']).toBe(`attachment; filename="api_users_${today}.csv"`);
    const csvTime = (iso: string) => iso.replace('T', ' ').replace('Z', '');
    expect(text.trim().split('\n').map((line) => line.split(','))).toEqual([
      ['Email', 'First Name', 'Last Name', 'Website', 'Registration Source', 'Signed Up (UTC)', 'Hits', 'Last Request (UTC)', 'Use Description'],
      ['ada@example.com', 'Ada', 'Lovelace', 'https://ada.example', 'web', csvTime(createdAtOf(ada.id)), '12', csvTime(await lastRequestOf(ada.id)), 'Engines'],
      ['gone@example.com', '', '', '', '', '', '2', csvTime(await lastRequestOf(gone.id)), ''],
      ['caller@example.com', 'Test', 'User', '', 'test', csvTime(createdAtOf(fx.userId)), '1', csvTime(await lastRequestOf(fx.userId)), ''],
    ]);
    expect(text.split('\n')[1]).toMatch(/,\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},12,\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},/);
  });
});

describe('GET /admin/stats/search.json', () => {
  it("answers summary.json's statistics in API Umbrella's shape: stats, hits_over_time rows, top users and IPs with their shares", async () => {
    const params = { search: '', start_at: today, end_at: today, interval: 'day' };
    const { status, body } = await fx.stats('/admin/stats/search.json', params);
    expect(status).toBe(200);
    const summary = (await fx.stats('/admin/stats/summary.json', params)).body;
    expect(body.stats).toEqual({ total_hits: 16, total_users: 3, total_ips: 13, average_response_time: summary.average_response_time });
    expect(body.stats.average_response_time).toBeGreaterThan(0);
    const midnight = Date.parse(today);
    expect(body.hits_over_time).toEqual([{ c: [{ v: midnight, f: dayLabel(midnight) }, { v: 16, f: '16' }] }]);
    expect(body.aggregations.users).toEqual([
      { key: 'ada@example.com', count: 12, percent: 75 },
      { key: 'gone@example.com', count: 2, percent: 13 },
      { key: 'caller@example.com', count: 1, percent: 6 },
      // The request without a key.
      { key: 'Missing / Unknown', count: 1, percent: 6 },
    ]);
    const ips = body.aggregations.ips as { key: string; count: number; percent?: number }[];
    expect(ips).toHaveLength(11);
    expect(ips.slice(0, 2)).toEqual([
      { key: '203.0.113.1', count: 3, percent: 19 },
      { key: '203.0.113.3', count: 2, percent: 13 },
    ]);
    expect(ips.slice(2, 10).every((ip) => ip.count === 1 && ip.percent === 6)).toBe(true);
    // Three IPs of one hit each beyond the top ten; Other has no share, as in API Umbrella.
    expect(ips[10]).toEqual({ key: 'Other', count: 3 });
  });

  it('applies query and search as logs.json does', async () => {
    const allowed = await fx.stats('/admin/stats/search.json', { start_at: today, end_at: today, query: JSON.stringify(DEFAULT_RULES) });
    expect(allowed.body.stats).toMatchObject({ total_hits: 15, total_users: 3, total_ips: 12 });
    expect(allowed.body.aggregations.users.map((user: { key: string }) => user.key)).toEqual(['ada@example.com', 'gone@example.com', 'caller@example.com']);
    const searched = await fx.stats('/admin/stats/search.json', { start_at: today, end_at: today, search: '203.0.113.3' });
    expect(searched.body.stats).toMatchObject({ total_hits: 2, total_users: 1, total_ips: 1 });
    const bad = await fx.stats('/admin/stats/search.json', { query: '[{"field":"nope","operator":"equal","value":"x"}]' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('Unknown filter field "nope"');
  });

  it("labels hours as API Umbrella does: 12-hour clock and the zone (UTC, API Umbrella's default)", async () => {
    const { body } = await fx.stats('/admin/stats/search.json', { start_at: today, end_at: today, interval: 'hour' });
    const midnight = Date.parse(today);
    expect(body.hits_over_time).toHaveLength(24);
    expect(body.hits_over_time[0].c[0]).toEqual({ v: midnight, f: `${dayLabel(midnight)} 12:00AM UTC` });
    expect(body.hits_over_time[13].c[0]).toEqual({ v: midnight + 13 * 3_600_000, f: `${dayLabel(midnight)} 1:00PM UTC` });
    expect(body.hits_over_time.reduce((sum: number, row: { c: { v: number }[] }) => sum + row.c[1]!.v, 0)).toBe(16);
  });

  it("answers API Umbrella's test_no_results_non_existent_indices (in UTC days)", async () => {
    const { body } = await fx.stats('/admin/stats/search.json', { search: '', start_at: '2000-01-13', end_at: '2000-01-18', interval: 'day' });
    const days = ['Thu, Jan 13, 2000', 'Fri, Jan 14, 2000', 'Sat, Jan 15, 2000', 'Sun, Jan 16, 2000', 'Mon, Jan 17, 2000', 'Tue, Jan 18, 2000'];
    expect(body).toEqual({
      hits_over_time: days.map((f, index) => ({ c: [{ v: Date.UTC(2000, 0, 13 + index), f }, { v: 0, f: '0' }] })),
      stats: { total_users: 0, total_ips: 0, total_hits: 0, average_response_time: null },
      aggregations: { ips: [], users: [] },
    });
  });
});

describe("API Umbrella's interval labels and top lists", () => {
  it('labels minutes, weeks and months as formatted_interval_time does', () => {
    expect(intervalLabel('minute', Date.UTC(2015, 2, 8, 9, 5))).toBe('Sun, Mar 8, 2015 9:05AM UTC');
    expect(intervalLabel('hour', Date.UTC(2015, 2, 8, 12))).toBe('Sun, Mar 8, 2015 12:00PM UTC');
    expect(intervalLabel('week', Date.UTC(2026, 10, 23))).toBe('Nov 23, 2026 - Nov 30, 2026');
    expect(intervalLabel('month', Date.UTC(2026, 11, 1))).toBe('Dec 1, 2026 - Jan 1, 2027');
  });

  it('lists Missing / Unknown only where it would rank among the top ten, and Other for the rest', () => {
    const users = Array.from({ length: 12 }, (_, index) => ({ user_id: `u${index}`, user_email: `u${index}@example.com`, hits: 20 - index, last_request_at: 0 }));
    const statistics = (missing: number): Statistics => {
      const withUser = users.reduce((sum, user) => sum + user.hits, 0);
      return { hits: withUser + missing, users, ips: [], average_response_time: 1, chart: [] };
    };
    // The tenth user has 11 hits.
    const below = searchStats(statistics(10), 'day').aggregations.users;
    expect(below.map((term) => term.key)).toEqual([...users.slice(0, 10).map((user) => user.user_email), 'Other']);
    expect(below[10]).toEqual({ key: 'Other', count: 10 + 9 });
    const ranks = searchStats(statistics(11), 'day').aggregations.users;
    expect(ranks.slice(10)).toEqual([{ key: 'Missing / Unknown', count: 11, percent: 6 }, { key: 'Other', count: 19 }]);
  });
});
