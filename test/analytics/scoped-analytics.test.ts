// Analytics for admins who are not superusers, as API Umbrella limits them:
// only with the analytics permission, and then only over the requests within
// the API scopes of the groups granting it (host, any port when the scope
// names none; path prefix, case-sensitively), on every page and endpoint.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStore, SESSION_COOKIE } from '../../src/admin-ui/session-auth.js';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { AnalyticsQueries } from '../../src/analytics/log-queries.js';
import { DEFAULT_RULES } from '../../src/analytics/query/filter-rules.js';
import { parseLogQuery, type LogQuery } from '../../src/analytics/query/log-query.js';
import { whereSql } from '../../src/analytics/query/where-sql.js';
import { AnalyticsWriter } from '../../src/analytics/writer.js';
import { createScopedAdmin, type ScopedAdmin } from '../helpers/scoped-admin.js';
import { entry, T0, tempStore } from './fixtures.js';
import { EVERYTHING, startAnalyticsFixture, type AnalyticsFixture } from './support.js';

const SCOPES = [
  { host: 'api.example.com', path_prefix: '/foo' },
  // LIKE would read "%" and "_" as wildcards.
  { host: 'other.example.com:8080', path_prefix: '/100%_' },
];
const INSIDER = { user_id: 'u-in', user_email: 'in@example.com', request_ip: '192.0.2.10' };
const OUTSIDER = { user_id: 'u-out', user_email: 'out@example.com', request_ip: '198.51.100.1' };

/** Requests within SCOPES: the first host in another case and on a port its scope does not name. */
const WITHIN = [
  entry({ request_id: 'in-path', request_host: 'api.example.com', request_path: '/foo/bar', ...INSIDER }),
  entry({ request_id: 'in-port', request_host: 'API.Example.com:8443', request_path: '/foo', ...INSIDER }),
  entry({ request_id: 'in-percent', request_host: 'other.example.com:8080', request_path: '/100%_off/x', user_id: 'u-in2', user_email: 'in2@example.com', request_ip: '192.0.2.11' }),
];
const WITHIN_DENIED = entry({ request_id: 'in-denied', request_host: 'api.example.com', request_path: '/foo/denied', gatekeeper_denied_code: 'api_key_missing', user_id: null, user_email: null });
/** Requests outside SCOPES, each only just. */
const OUTSIDE = [
  entry({ request_id: 'out-case', request_host: 'api.example.com', request_path: '/Foo/bar', ...OUTSIDER }),
  entry({ request_id: 'out-path', request_host: 'api.example.com', request_path: '/bar', ...OUTSIDER }),
  entry({ request_id: 'out-suffix', request_host: 'api.example.com.evil.net', request_path: '/foo', ...OUTSIDER }),
  entry({ request_id: 'out-port', request_host: 'other.example.com:9090', request_path: '/100%_off/x', ...OUTSIDER }),
  entry({ request_id: 'out-no-port', request_host: 'other.example.com', request_path: '/100%_off/x', ...OUTSIDER }),
  entry({ request_id: 'out-wildcards', request_host: 'other.example.com:8080', request_path: '/100xyoff', ...OUTSIDER }),
];
const WITHIN_IDS = WITHIN.map((row) => row.request_id).sort();
/** Without a query the endpoints hide nothing, as API Umbrella's; the pages' default filter hides denied requests. */
const WITHIN_WITH_DENIED = [...WITHIN_IDS, 'in-denied'].sort();

const STATS_PATHS = [
  '/admin/stats/logs.json',
  '/admin/stats/logs.csv',
  '/admin/stats/summary.json',
  '/admin/stats/search.json',
  '/admin/stats/users.json',
  '/admin/stats/users.csv',
  '/admin/stats/map.json',
  '/admin/stats/map.csv',
  '/admin/stats/drilldown.json',
  '/admin/stats/drilldown.csv',
  '/api-umbrella/v1/analytics/drilldown.json',
  '/api-umbrella/v1/analytics/drilldown.csv',
];
const PAGE_PATHS = ['/admin/analytics/logs', '/admin/analytics/users', '/admin/analytics/locations', '/admin/analytics/drilldown'];

let fx: AnalyticsFixture;
let scoped: ScopedAdmin;
let withoutAnalytics: ScopedAdmin;
let inNoGroup: string;

beforeAll(async () => {
  fx = await startAnalyticsFixture();
  const { context } = fx.gw;
  const now = Date.now();
  [...WITHIN, WITHIN_DENIED, ...OUTSIDE].forEach((row, index) => context.analytics.record({ ...row, request_at: now - index * 1_000 }));
  context.analytics.flush();
  const place = context.db.prepare('INSERT INTO analytics_ip_locations (request_ip, country) VALUES (?, ?)');
  place.run('192.0.2.10', 'US');
  place.run('192.0.2.11', 'CA');
  place.run('198.51.100.1', 'GB');
  scoped = await createScopedAdmin(context, { email: 'scoped@example.com', scopes: SCOPES, permissions: ['analytics'] });
  withoutAnalytics = await createScopedAdmin(context, { email: 'users-only@example.com', scopes: SCOPES, permissions: ['user_view', 'admin_view'] });
  inNoGroup = (await context.admins.create({ email: 'nobody@example.com', password: 'correct horse battery staple', superuser: false }))!.authToken;
});
afterAll(() => fx.close());

/** GET with an admin token: JSON parsed, anything else as text. */
async function statsAs(token: string, path: string, params: Record<string, string> = {}): Promise<{ status: number; body: any; text: string }> {
  const response = await request(`${fx.gw.url}${path}?${new URLSearchParams(params)}`, { headers: { 'X-Admin-Auth-Token': token } });
  const text = await response.body.text();
  return { status: response.statusCode, body: String(response.headers['content-type']).startsWith('application/json') ? JSON.parse(text) : null, text };
}

/** GET a page signed in as the admin. */
async function pageAs(admin: ScopedAdmin, path: string): Promise<{ status: number; text: string }> {
  const cookie = `${SESSION_COOKIE}=${sessionStore(fx.gw.context).create(admin.admin.id)}`;
  const response = await request(`${fx.gw.url}${path}`, { headers: { cookie } });
  return { status: response.statusCode, text: await response.body.text() };
}

const logIds = async (token: string, params: Record<string, string> = {}) =>
  ((await statsAs(token, '/admin/stats/logs.json', params)).body.data as { request_id: string }[]).map((row) => row.request_id).sort();
const rule = (field: string, operator: string, value?: string) => ({ query: JSON.stringify([{ field, operator, value }]) });
/** The pages' default filter, spelled out. */
const ALLOWED = { query: JSON.stringify(DEFAULT_RULES) };

describe('an admin with analytics in some API scopes', () => {
  it("sees only the entries within them in logs.json, denied ones too unless the pages' default filter is asked for", async () => {
    const { status, body } = await statsAs(scoped.authToken, '/admin/stats/logs.json');
    expect(status).toBe(200);
    expect(body).toMatchObject({ recordsTotal: 4, recordsFiltered: 4 });
    expect(await logIds(scoped.authToken)).toEqual(WITHIN_WITH_DENIED);
    expect(await logIds(scoped.authToken, EVERYTHING)).toEqual(WITHIN_WITH_DENIED);
    expect(await logIds(scoped.authToken, ALLOWED)).toEqual(WITHIN_IDS);
  });

  it('cannot widen them with a filter or a search', async () => {
    const outsideHost = rule('request_host', 'equal', 'api.example.com.evil.net');
    expect(await logIds(fx.gw.adminToken, outsideHost)).toEqual(['out-suffix']);
    expect(await logIds(scoped.authToken, outsideHost)).toEqual([]);
    expect(await logIds(scoped.authToken, rule('request_path', 'begins_with', '/'))).toEqual(WITHIN_WITH_DENIED);
    expect(await logIds(scoped.authToken, rule('request_host', 'not_equal', 'nothing'))).toEqual(WITHIN_WITH_DENIED);
    expect(await logIds(scoped.authToken, { search: 'bar' })).toEqual(['in-path']);
    expect(await logIds(scoped.authToken, { search: '100' })).toEqual(['in-percent']);
    expect(await logIds(scoped.authToken, { ...EVERYTHING, search: 'out@example.com' })).toEqual([]);
  });

  it('downloads only them as CSV', async () => {
    const { status, text } = await statsAs(scoped.authToken, '/admin/stats/logs.csv', EVERYTHING);
    expect(status).toBe(200);
    const [header, ...lines] = text.trim().split('\n');
    const column = header!.split(',').indexOf('request_id');
    expect(lines.map((line) => line.split(',')[column]).sort()).toEqual(WITHIN_WITH_DENIED);
    const users = await statsAs(scoped.authToken, '/admin/stats/users.csv');
    expect(users.text.trim().split('\n').slice(1).map((line) => line.split(',')[0])).toEqual(['in@example.com', 'in2@example.com']);
  });

  it('gets totals, unique users and IPs, top lists and chart of them only, not of the daily rollups, in summary.json and search.json', async () => {
    const { body } = await statsAs(scoped.authToken, '/admin/stats/summary.json', { range: 'last_7_days', ...ALLOWED });
    expect(body).toMatchObject({ hits: 3, unique_users: 2, unique_ips: 2 });
    // The dropped entries are counted over every API: a superuser's figure.
    expect(body).not.toHaveProperty('dropped_entries');
    expect(body.top_users.map((user: { user_id: string; hits: number }) => [user.user_id, user.hits])).toEqual([['u-in', 2], ['u-in2', 1]]);
    expect(body.top_ips).toEqual([{ request_ip: '192.0.2.10', hits: 2 }, { request_ip: '192.0.2.11', hits: 1 }]);
    expect(body.chart.reduce((sum: number, point: { hits: number }) => sum + point.hits, 0)).toBe(3);
    // The one filter the rollups answer (denied or not) still reads the rows.
    const denied = await statsAs(scoped.authToken, '/admin/stats/summary.json', rule('gatekeeper_denied_code', 'is_not_null'));
    expect(denied.body).toMatchObject({ hits: 1, unique_users: 0, unique_ips: 1 });
    const search = await statsAs(scoped.authToken, '/admin/stats/search.json', { range: 'last_7_days' });
    expect(search.body.stats).toMatchObject({ total_hits: 4, total_users: 2, total_ips: 3 });
    expect(search.body.aggregations.users).toEqual([
      { key: 'in@example.com', count: 2, percent: 50 },
      { key: 'in2@example.com', count: 1, percent: 25 },
      { key: 'Missing / Unknown', count: 1, percent: 25 },
    ]);
  });

  it('lists only their users', async () => {
    const { body } = await statsAs(scoped.authToken, '/admin/stats/users.json');
    expect(body).toMatchObject({ recordsTotal: 2, recordsFiltered: 2 });
    expect(body.data.map((user: { id: string }) => user.id)).toEqual(['u-in', 'u-in2']);
  });

  it('drills down into their hosts and paths only, at both addresses of the drilldown', async () => {
    for (const base of ['/admin/stats/drilldown', '/api-umbrella/v1/analytics/drilldown']) {
      const hosts = await statsAs(scoped.authToken, `${base}.json`);
      expect(hosts.body.results.map((result: { path: string; hits: number }) => [result.path, result.hits])).toEqual([
        ['api.example.com/', 2],
        ['api.example.com:8443/', 1],
        ['other.example.com:8080/', 1],
      ]);
    }
    const paths = await statsAs(scoped.authToken, '/admin/stats/drilldown.json', { prefix: '1/api.example.com/' });
    expect(paths.body.results.map((result: { path: string }) => result.path)).toEqual(['api.example.com/foo/']);
    const csv = await statsAs(scoped.authToken, '/admin/stats/drilldown.csv', { prefix: '1/api.example.com/' });
    expect(csv.text.trim().split('\n')).toEqual(['Path,Hits', 'api.example.com/foo/,2']);
  });

  it('maps only their clients', async () => {
    const { body } = await statsAs(scoped.authToken, '/admin/stats/map.json');
    // Their denied request's IP is placed nowhere: Unknown, still of their scopes only.
    expect(body.regions.map((region: { id: string; hits: number }) => [region.id, region.hits])).toEqual([['US', 2], ['CA', 1], ['missing', 1]]);
    const csv = await statsAs(scoped.authToken, '/admin/stats/map.csv');
    expect(csv.text).not.toContain('GB');
  });

  it('sees only them on every page, which names the scopes', async () => {
    const logs = await pageAs(scoped, '/admin/analytics/logs');
    expect(logs.status).toBe(200);
    expect(logs.text).toMatch(/data-testid="total-hits">3</);
    expect(logs.text).toContain('Only requests within your API scopes: api.example.com/foo, other.example.com:8080/100%_');
    expect(logs.text).not.toContain('out@example.com');
    const users = await pageAs(scoped, '/admin/analytics/users');
    expect(users.text).toContain('in2@example.com');
    expect(users.text).not.toContain('out@example.com');
    const locations = await pageAs(scoped, '/admin/analytics/locations');
    expect(locations.text).toContain('Canada');
    expect(locations.text).not.toContain('United Kingdom');
    const drilldown = await pageAs(scoped, '/admin/analytics/drilldown');
    expect(drilldown.text).toContain('other.example.com:8080/');
    expect(drilldown.text).not.toContain('evil.net');
  });
});

/** What each endpoint answers when nothing is found, as API Umbrella answers an admin without analytics. */
const NOTHING_FOUND: Record<string, (answer: { body: any; text: string }) => void> = {
  '/admin/stats/logs.json': ({ body }) => expect(body).toEqual({ draw: 0, recordsTotal: 0, recordsFiltered: 0, data: [] }),
  '/admin/stats/summary.json': ({ body }) => expect(body).toMatchObject({ hits: 0, unique_users: 0, unique_ips: 0, top_users: [], top_ips: [] }),
  '/admin/stats/search.json': ({ body }) => expect(body).toMatchObject({ stats: { total_hits: 0, total_users: 0, total_ips: 0, average_response_time: null }, aggregations: { users: [], ips: [] } }),
  '/admin/stats/users.json': ({ body }) => expect(body).toEqual({ draw: 0, recordsTotal: 0, recordsFiltered: 0, data: [] }),
  '/admin/stats/map.json': ({ body }) => expect(body).toMatchObject({ regions: [], map_regions: [] }),
  '/admin/stats/drilldown.json': ({ body }) => expect(body.results).toEqual([]),
  '/api-umbrella/v1/analytics/drilldown.json': ({ body }) => expect(body.results).toEqual([]),
};

describe('an admin without analytics', () => {
  it.each(STATS_PATHS)('finds nothing at %s (200), as in API Umbrella', async (path) => {
    const answer = await statsAs(withoutAnalytics.authToken, path, EVERYTHING);
    expect(answer.status).toBe(200);
    // A CSV has its header alone.
    if (path.endsWith('.csv')) expect(answer.text.trim().split('\n')).toHaveLength(1);
    else NOTHING_FOUND[path]!(answer);
  });

  it('finds nothing with the web session too, nor in no group at all', async () => {
    const session = await pageAs(withoutAnalytics, '/admin/stats/summary.json');
    expect(session.status).toBe(200);
    expect(JSON.parse(session.text)).toMatchObject({ hits: 0 });
    const nobody = await statsAs(inNoGroup, '/admin/stats/logs.json');
    expect(nobody.status).toBe(200);
    expect(nobody.body.recordsTotal).toBe(0);
  });

  it('still gets a 400 for parameters it sent wrong, as any admin does', async () => {
    expect((await statsAs(withoutAnalytics.authToken, '/admin/stats/logs.json', { query: 'nonsense' })).body).toEqual({ error: 'query is not valid JSON' });
  });

  it.each(PAGE_PATHS)('gets the Not authorized page at %s', async (path) => {
    const { status, text } = await pageAs(withoutAnalytics, path);
    expect(status).toBe(403);
    expect(text).toContain('<h1>Not authorized</h1>');
    expect(text).toContain('You are not authorized to perform this action.');
    expect(text).not.toContain('in@example.com');
  });

  it('gets it before the filter form is turned into a URL, or a bad view is read', async () => {
    for (const path of ['/admin/analytics/logs?field=request_path&operator=equal&value=%2F', '/admin/analytics/logs?query=nonsense']) {
      expect((await pageAs(withoutAnalytics, path)).status).toBe(403);
    }
  });
});

describe('a superuser', () => {
  it('sees every request, as before', async () => {
    expect(await logIds(fx.gw.adminToken, EVERYTHING)).toEqual([...WITHIN, WITHIN_DENIED, ...OUTSIDE].map((row) => row.request_id).sort());
    const { body } = await fx.stats('/admin/stats/summary.json', { range: 'last_7_days' });
    expect(body).toMatchObject({ hits: 10, unique_users: 3, unique_ips: 4 });
    expect(body.dropped_entries).toBe(0);
    const hosts = await fx.stats('/admin/stats/drilldown.json');
    expect(hosts.body.results).toHaveLength(6);
    const page = await fx.page('/admin/analytics/logs');
    expect(page.text).not.toContain('data-testid="analytics-scopes"');
  });
});

describe('scoped queries in the store', () => {
  const NOW = T0 + 3_600_000;
  const view = (scopes?: LogQuery['scopes']): LogQuery => {
    const parsed = parseLogQuery({ range: 'last_7_days' }, NOW);
    if (!parsed.ok) throw new Error(parsed.error);
    return scopes === undefined ? parsed.query : { ...parsed.query, scopes };
  };
  const storeWith = (entries: AnalyticsEntry[]) => {
    const db = tempStore();
    new AnalyticsWriter(db).writeEntries(entries);
    return db;
  };

  it('read the rows, never the daily rollups, while a superuser view still reads the rollups', () => {
    const db = storeWith([...WITHIN, ...OUTSIDE]);
    // Rollups that disagree with the rows show which one answered.
    db.exec('DELETE FROM analytics_user_days; DELETE FROM analytics_ip_days;');
    const queries = new AnalyticsQueries(db);
    expect(queries.userHits(view())).toEqual([]);
    expect(queries.ipHits(view())).toEqual([]);
    expect(queries.userHits(view(SCOPES)).map((user) => user.user_id)).toEqual(['u-in', 'u-in2']);
    expect(queries.ipHits(view(SCOPES))).toEqual([{ request_ip: '192.0.2.10', hits: 2 }, { request_ip: '192.0.2.11', hits: 1 }]);
  });

  it('put no scope condition in a superuser query, and match nothing with no scopes', () => {
    expect(whereSql(view()).sql).not.toContain('request_host');
    const queries = new AnalyticsQueries(storeWith(WITHIN));
    expect(queries.count(view([]))).toBe(0);
    expect(queries.count(view([{ host: 'api.example.com', path_prefix: '/' }]))).toBe(2);
  });
});
