// By Users sorts on its own columns (hits, last request, email, user id), as
// API Umbrella's does, most hits first by default; users.json, users.csv and
// the page take the same `order`, and pages of it put back together are the list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { AnalyticsQueries } from '../../src/analytics/log-queries.js';
import { parseUsersQuery, type UsersQuery } from '../../src/analytics/query/users-query.js';
import { AnalyticsWriter } from '../../src/analytics/writer.js';
import { DAY, entry, T0, tempStore } from './fixtures.js';
import { PAGE_DEFAULT_QUERY, shownDays, startAnalyticsFixture, type AnalyticsFixture } from './support.js';

/**
 * Four users: u-b and u-c tie on hits; u-d has no email (NULL, first
 * ascending, last descending); hits and last requests do not go together.
 */
function usersEntries(base: number): AnalyticsEntry[] {
  const at = (user: string, email: string | null, offsets: number[]) => offsets.map((offset) => entry({ request_at: base + offset, user_id: user, user_email: email }));
  return [
    ...at('u-a', 'mia@example.com', [1_000, 2_000, 3_000, 4_000]),
    ...at('u-b', 'amy@example.com', [5_000, 50_000]),
    ...at('u-c', 'zoe@example.com', [6_000, 7_000]),
    ...at('u-d', null, [90_000, 8_000, 9_000]),
  ];
}
/** Each order's list, as user ids. */
const EXPECTED: Record<string, string[]> = {
  '': ['u-a', 'u-d', 'u-c', 'u-b'],
  'hits:desc': ['u-a', 'u-d', 'u-c', 'u-b'],
  'hits:asc': ['u-b', 'u-c', 'u-d', 'u-a'],
  hits: ['u-b', 'u-c', 'u-d', 'u-a'],
  'last_request_at:desc': ['u-d', 'u-b', 'u-c', 'u-a'],
  'last_request_at:asc': ['u-a', 'u-c', 'u-b', 'u-d'],
  'user_email:asc': ['u-d', 'u-b', 'u-a', 'u-c'],
  'user_email:desc': ['u-c', 'u-a', 'u-b', 'u-d'],
  'user_id:desc': ['u-d', 'u-c', 'u-b', 'u-a'],
};

/** users.json's fields, as API Umbrella's By Users table names its columns (columns[n][data]). */
const TABLE_COLUMNS = ['email', 'first_name', 'last_name', 'website', 'registration_source', 'created_at', 'hits', 'last_request_at', 'use_description'];

/** DataTables' parameters of that table sorted on `column`. */
function tableOrder(column: string, dir: string): Record<string, string> {
  const columns = Object.fromEntries(TABLE_COLUMNS.map((data, index) => [`columns[${index}][data]`, data]));
  return { ...columns, 'order[0][column]': String(TABLE_COLUMNS.indexOf(column)), 'order[0][dir]': dir };
}

describe('By Users in the store', () => {
  const NOW = T0 + 3_600_000;
  const db = tempStore();
  new AnalyticsWriter(db).writeEntries(usersEntries(T0 - 2 * DAY));
  const queries = new AnalyticsQueries(db);
  const view = (params: Record<string, unknown>): UsersQuery => {
    const parsed = parseUsersQuery({ range: 'last_7_days', ...params }, NOW);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.query;
  };
  // A filter that matches everything reads the rows; without it, whole days read the daily rollups.
  const fromRows = { query: JSON.stringify([{ field: 'request_at', operator: 'greater', value: 0 }]) };

  it.each(Object.entries(EXPECTED))('sorts on order=%j, from the rollups as from the rows, ties by user id', (order, ids) => {
    expect(queries.users(view({ order })).map((user) => user.user_id)).toEqual(ids);
    expect(queries.users(view({ order, ...fromRows })).map((user) => user.user_id)).toEqual(ids);
  });

  it('keeps most hits first for the highlights, whatever the list is sorted on', () => {
    expect(queries.summary(view({ order: 'user_email:asc' })).top_users.map((user) => user.user_id)).toEqual(EXPECTED['hits:desc']);
  });

  it.each(['response_time:desc', 'request_at', 'hits:up', 'hits:desc:x', 'Hits', 'toString', '__proto__', 'hasOwnProperty'])('refuses order=%j with a message naming its columns', (order) => {
    const parsed = parseUsersQuery({ order }, NOW);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toBe('order must be a column of By Users (user_email, user_id, hits, last_request_at), optionally followed by :asc or :desc (e.g. hits:desc)');
  });

  it.each([
    ['hits', 'asc', { field: 'hits', direction: 'asc' }],
    ['last_request_at', 'desc', { field: 'last_request_at', direction: 'desc' }],
    ['email', 'asc', { field: 'user_email', direction: 'asc' }],
  ])("reads DataTables' order on %s %s as API Umbrella's By Users table sends it", (column, dir, usersOrder) => {
    const parsed = parseUsersQuery(tableOrder(column, dir), NOW);
    expect(parsed.ok && parsed.query.usersOrder).toEqual(usersOrder);
  });

  it.each([
    ['a user detail it does not sort on', tableOrder('first_name', 'asc'), 'columns[1][data] is not a valid orderable column name: By Users sorts on one of user_email, user_id, hits, last_request_at, email, id'],
    ['a direction but asc and desc', tableOrder('hits', 'up'), "order[0][dir] must be 'asc' or 'desc': By Users sorts on one of user_email, user_id, hits, last_request_at, email, id"],
    ['a column index without its column', { 'order[0][column]': '3' }, 'order[0][column] is not a valid column index: By Users sorts on one of user_email, user_id, hits, last_request_at, email, id'],
    ['a second column', { ...tableOrder('hits', 'asc'), 'order[1][column]': '0' }, "DataTables' order names more than one column: By Users sorts on one of user_email, user_id, hits, last_request_at, email, id, ties broken by user id"],
    ['order given both ways', { ...tableOrder('hits', 'asc'), order: 'hits:desc' }, "order is given twice: send either order (e.g. hits:desc) or DataTables' order[0][column] with columns[n][data]"],
  ])("refuses DataTables' order with %s rather than dropping it", (_case, params, error) => {
    const parsed = parseUsersQuery(params, NOW);
    expect(!parsed.ok && parsed.error).toBe(error);
  });

  it('still reads the rest of the view as every view does', () => {
    const parsed = parseUsersQuery({ order: 'hits:asc', start: '-1' }, NOW);
    expect(!parsed.ok && parsed.error).toContain('start must be a whole number');
  });
});

describe('users.json, users.csv and the By Users page', () => {
  let fx: AnalyticsFixture;

  beforeAll(async () => {
    fx = await startAnalyticsFixture();
    for (const logged of usersEntries(Date.now() - 100_000)) fx.gw.context.analytics.record(logged);
    fx.gw.context.analytics.flush();
  });
  afterAll(() => fx.close());

  const jsonIds = async (params: Record<string, string>) => (await fx.stats('/admin/stats/users.json', params)).body.data.map((user: { id: string }) => user.id);
  /** users.csv has API Umbrella's columns, no id: its users by their emails (u-d has none). */
  const emails: Record<string, string> = { 'u-a': 'mia@example.com', 'u-b': 'amy@example.com', 'u-c': 'zoe@example.com', 'u-d': '' };

  it.each(Object.entries(EXPECTED))('users.json and users.csv follow order=%j', async (order, ids) => {
    expect(await jsonIds({ order })).toEqual(ids);
    const { text } = await fx.stats('/admin/stats/users.csv', { order });
    expect(text.trim().split('\n').slice(1).map((line) => line.split(',')[0])).toEqual(ids.map((id) => emails[id]));
  });

  it("takes users.json's own names for the user's columns: email and id", async () => {
    expect(await jsonIds({ order: 'email:asc' })).toEqual(EXPECTED['user_email:asc']);
    expect(await jsonIds({ order: 'id:desc' })).toEqual(EXPECTED['user_id:desc']);
  });

  it.each([
    ['hits', 'asc'],
    ['hits', 'desc'],
    ['last_request_at', 'asc'],
    ['email', 'desc'],
  ])("users.json and users.csv follow DataTables' order on %s %s, as API Umbrella's By Users table asks", async (column, dir) => {
    const expected = EXPECTED[`${column === 'email' ? 'user_email' : column}:${dir}`]!;
    expect(await jsonIds(tableOrder(column, dir))).toEqual(expected);
    const { text } = await fx.stats('/admin/stats/users.csv', tableOrder(column, dir));
    expect(text.trim().split('\n').slice(1).map((line) => line.split(',')[0])).toEqual(expected.map((id) => emails[id]));
  });

  it("answers 400 for a DataTables order on a column it cannot sort on", async () => {
    const { status, body } = await fx.stats('/admin/stats/users.json', tableOrder('created_at', 'asc'));
    expect(status).toBe(400);
    expect(body.error).toMatch(/^columns\[5\]\[data\] is not a valid orderable column name: By Users sorts on one of/);
  });

  it('pages through the sorted list without a gap or an overlap', async () => {
    for (const order of ['hits:asc', 'user_email:desc', 'last_request_at:asc']) {
      const pages = [...(await jsonIds({ order, length: '3' })), ...(await jsonIds({ order, start: '3', length: '3' }))];
      expect(pages, order).toEqual(EXPECTED[order]);
    }
    expect((await fx.stats('/admin/stats/users.json', { order: 'hits:asc', start: '2', length: '1' })).body).toMatchObject({ recordsTotal: 4, recordsFiltered: 4, data: [{ id: 'u-d', hits: 3 }] });
  });

  it.each(['/admin/stats/users.json', '/admin/stats/users.csv'])('%s answers 400 for a logged field that is not a column of By Users', async (path) => {
    const { status, body } = await fx.stats(path, { order: 'response_time:desc' });
    expect(status).toBe(400);
    expect(body.error).toMatch(/^order must be a column of By Users \(user_email, user_id, hits, last_request_at\)/);
  });

  it('makes each column header a sort link, flipping the current one, and keeps the order in the CSV link and the filter form', async () => {
    const { status, text } = await fx.page('/admin/analytics/users?range=last_7_days&order=user_email%3Aasc');
    expect(status).toBe(200);
    // Each row ends with the user's id.
    const rows = [...text.matchAll(/<td><code>([^<]+)<\/code><\/td><\/tr>/g)].map((match) => match[1]);
    expect(rows).toEqual(EXPECTED['user_email:asc']);
    const headers = [...text.matchAll(/<th([^>]*)><a href="([^"]+)">([^<]+)<\/a><\/th>/g)].map((match) => [match[3], match[2]!.replaceAll('&amp;', '&'), match[1]!.trim()]);
    expect(headers).toEqual([
      ['Email ▲', '/admin/analytics/users?range=last_7_days&order=user_email%3Adesc', 'aria-sort="ascending"'],
      // Most hits first is the default, left out of the URL.
      ['Hits', '/admin/analytics/users?range=last_7_days', 'class="num"'],
      ['Last Request', '/admin/analytics/users?range=last_7_days&order=last_request_at%3Adesc', ''],
      ['User ID', '/admin/analytics/users?range=last_7_days&order=user_id%3Adesc', ''],
    ]);
    // The details joined from api_users for the page's users do not sort.
    expect(text).toMatch(/<th>First Name<\/th>\s*<th>Last Name<\/th>\s*<th>Signed Up<\/th>/);
    expect(text).toContain(`href="/admin/stats/users.csv?${shownDays(7)}&amp;${PAGE_DEFAULT_QUERY}&amp;order=user_email%3Aasc"`);
    expect(text).toContain('<input type="hidden" name="order" value="user_email:asc">');
    // The other views sort on other columns: their tabs start in their own default order.
    expect(text).toContain('href="/admin/analytics/logs?range=last_7_days"');
  });

  it('shows an order that is not a column of By Users next to the filters (400)', async () => {
    const { status, text } = await fx.page('/admin/analytics/users?order=request_at%3Adesc');
    expect(status).toBe(400);
    expect(text).toContain('order must be a column of By Users');
  });
});

describe('Filter Logs: the Download CSV link', () => {
  let fx: AnalyticsFixture;

  beforeAll(async () => {
    fx = await startAnalyticsFixture();
  });
  afterAll(() => fx.close());

  it("carries the page's order (not its paging); the other tabs start in their own order", async () => {
    const { status, text } = await fx.page('/admin/analytics/logs?range=last_7_days&order=response_time%3Aasc&start=50&length=20');
    expect(status).toBe(200);
    expect(text).toContain(`href="/admin/stats/logs.csv?${shownDays(7)}&amp;${PAGE_DEFAULT_QUERY}&amp;order=response_time%3Aasc"`);
    expect(text).toContain('href="/admin/analytics/users?range=last_7_days"');
    expect((await fx.page('/admin/analytics/logs?range=last_7_days')).text).toContain(`href="/admin/stats/logs.csv?${shownDays(7)}&amp;${PAGE_DEFAULT_QUERY}"`);
  });
});
