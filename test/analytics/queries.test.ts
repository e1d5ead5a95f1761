import { describe, expect, it } from 'vitest';
import { AnalyticsWriter } from '../../src/analytics/writer.js';
import { AnalyticsQueries } from '../../src/analytics/log-queries.js';
import { FIELDS } from '../../src/analytics/fields.js';
import { whereSql } from '../../src/analytics/query/where-sql.js';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { parseLogQuery, type LogQuery } from '../../src/analytics/query/log-query.js';
import { PAGE_DEFAULTS } from '../../src/analytics/routes/view-model.js';
import { DAY, entry, T0, tempStore } from './fixtures.js';

const NOW = T0 + 3_600_000;

function storeWith(entries: AnalyticsEntry[]): AnalyticsQueries {
  const db = tempStore();
  new AnalyticsWriter(db).writeEntries(entries);
  return new AnalyticsQueries(db);
}

function view(params: Record<string, unknown>): LogQuery {
  const parsed = parseLogQuery({ range: 'last_7_days', query: '[]', ...params }, NOW);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.query;
}

const filtered = (rules: unknown[]) => view({ query: JSON.stringify(rules) });
const ids = (rows: AnalyticsEntry[]) => rows.map((row) => row.request_id).sort();

describe('analytics queries: filter operators', () => {
  const queries = storeWith([
    entry({ request_id: 'a', request_path: '/weather/forecast', response_status: 200, response_time: 5, user_email: 'ann@example.com', request_origin: 'https://app.example.org' }),
    entry({ request_id: 'b', request_path: '/weather/stations', response_status: 404, response_time: 50, user_email: '', response_content_type: 'text/html' }),
    entry({ request_id: 'c', request_path: '/energy/prices', response_status: 500, response_time: 500, user_email: null, user_id: null, gatekeeper_denied_code: 'api_key_missing' }),
    entry({ request_id: 'd', request_path: '/energy/100%_off', response_status: 429, response_time: 1, upstream_time: null, gatekeeper_denied_code: 'over_rate_limit' }),
  ]);
  const match = (rules: unknown[]) => ids(queries.entries(filtered(rules)));

  it('equals and not equals (not equals keeps empty values)', () => {
    expect(match([{ field: 'request_path', operator: 'equal', value: '/energy/prices' }])).toEqual(['c']);
    expect(match([{ field: 'response_status', operator: 'equal', value: '404' }])).toEqual(['b']);
    expect(match([{ field: 'gatekeeper_denied_code', operator: 'not_equal', value: 'over_rate_limit' }])).toEqual(['a', 'b', 'c']);
  });

  it('begins with and contains, with LIKE wildcards in the value matching themselves', () => {
    expect(match([{ field: 'request_path', operator: 'begins_with', value: '/weather/' }])).toEqual(['a', 'b']);
    expect(match([{ field: 'request_path', operator: 'contains', value: 'ergy' }])).toEqual(['c', 'd']);
    expect(match([{ field: 'request_path', operator: 'contains', value: '100%_' }])).toEqual(['d']);
    expect(match([{ field: 'request_path', operator: 'contains', value: '%' }])).toEqual(['d']);
    expect(match([{ field: 'request_path', operator: 'begins_with', value: '_' }])).toEqual([]);
  });

  it('is empty and is not empty (null or empty text; null numbers)', () => {
    expect(match([{ field: 'user_email', operator: 'is_null' }])).toEqual(['b', 'c']);
    expect(match([{ field: 'user_email', operator: 'is_not_null' }])).toEqual(['a', 'd']);
    expect(match([{ field: 'upstream_time', operator: 'is_null' }])).toEqual(['d']);
    expect(match([{ field: 'gatekeeper_denied_code', operator: 'is_empty' }])).toEqual(['a', 'b']);
  });

  it('<, > and between (inclusive, either order) on numbers', () => {
    expect(match([{ field: 'response_time', operator: 'less', value: 50 }])).toEqual(['a', 'd']);
    expect(match([{ field: 'response_time', operator: 'greater', value: '50' }])).toEqual(['c']);
    expect(match([{ field: 'response_status', operator: 'between', value: [400, 429] }])).toEqual(['b', 'd']);
    expect(match([{ field: 'response_status', operator: 'between', value: '500,430' }])).toEqual(['c']);
  });

  it("filters on the request's origin (a client's context) and the response's content type (the row's own)", () => {
    expect(match([{ field: 'request_origin', operator: 'equal', value: 'https://app.example.org' }])).toEqual(['a']);
    expect(match([{ field: 'request_origin', operator: 'is_null' }])).toEqual(['b', 'c', 'd']);
    expect(match([{ field: 'response_content_type', operator: 'begins_with', value: 'TEXT/' }])).toEqual(['b']);
    expect(match([{ field: 'response_content_type', operator: 'not_equal', value: 'text/html' }])).toEqual(['a', 'c', 'd']);
  });

  it("does not begin with and does not contain, which keep empty values (API Umbrella's must_not)", () => {
    expect(match([{ field: 'request_path', operator: 'not_begins_with', value: '/weather/' }])).toEqual(['c', 'd']);
    expect(match([{ field: 'user_email', operator: 'not_begins_with', value: 'ann' }])).toEqual(['b', 'c', 'd']);
    expect(match([{ field: 'request_path', operator: 'not_contains', value: '100%_' }])).toEqual(['a', 'b', 'c']);
    expect(match([{ field: 'request_path', operator: 'not_contains', value: '_' }])).toEqual(['a', 'b', 'c']);
    expect(match([{ field: 'gatekeeper_denied_code', operator: 'not_contains', value: 'rate' }])).toEqual(['a', 'b', 'c']);
    expect(match([{ field: 'request_origin', operator: 'not_contains', value: 'example' }])).toEqual(['b', 'c', 'd']);
  });

  it('≤ and ≥ on numbers, which an empty number does not meet', () => {
    expect(match([{ field: 'response_time', operator: 'less_or_equal', value: 50 }])).toEqual(['a', 'b', 'd']);
    expect(match([{ field: 'response_time', operator: 'greater_or_equal', value: '50' }])).toEqual(['b', 'c']);
    expect(match([{ field: 'upstream_time', operator: 'greater_or_equal', value: 0 }])).toEqual(['a', 'b', 'c']);
  });

  it("matches text whatever its ASCII case, with every text operator, as API Umbrella's lowercased values do", () => {
    // API Umbrella's query builder sends "get" for GET.
    expect(match([{ field: 'request_method', operator: 'equal', value: 'get' }])).toEqual(['a', 'b', 'c', 'd']);
    expect(match([{ field: 'request_path', operator: 'equal', value: '/ENERGY/Prices' }])).toEqual(['c']);
    expect(match([{ field: 'response_content_type', operator: 'equal', value: 'Text/HTML' }])).toEqual(['b']);
    expect(match([{ field: 'user_email', operator: 'not_equal', value: 'ANN@example.com' }])).toEqual(['b', 'c', 'd']);
    expect(match([{ field: 'gatekeeper_denied_code', operator: 'not_equal', value: 'OVER_RATE_LIMIT' }])).toEqual(['a', 'b', 'c']);
    expect(match([{ field: 'request_path', operator: 'not_begins_with', value: '/WEATHER' }])).toEqual(['c', 'd']);
    expect(match([{ field: 'request_origin', operator: 'not_contains', value: 'APP.' }])).toEqual(['b', 'c', 'd']);
  });

  it('combines filters with AND', () => {
    expect(match([
      { field: 'request_path', operator: 'begins_with', value: '/energy' },
      { field: 'response_status', operator: 'less', value: 450 },
    ])).toEqual(['d']);
  });

  it('treats an SQL fragment in a value as a plain value', () => {
    expect(match([{ field: 'request_path', operator: 'equal', value: "x' OR '1'='1" }])).toEqual([]);
    expect(match([{ field: 'request_path', operator: 'contains', value: "'; DROP TABLE analytics_logs; --" }])).toEqual([]);
    expect(queries.count(view({}))).toBe(4);
  });

  it('searches path, query, user email and IP', () => {
    expect(ids(queries.entries(view({ search: 'stations' })))).toEqual(['b']);
    expect(ids(queries.entries(view({ search: 'ANN@' })))).toEqual(['a']);
    expect(ids(queries.entries(view({ search: '192.0.2' })))).toHaveLength(4);
  });

  it("hides denied requests by a page's default, and not without one (a script's)", () => {
    const page = parseLogQuery({ range: 'last_7_days' }, NOW, PAGE_DEFAULTS);
    expect(page.ok && ids(queries.entries(page.query))).toEqual(['a', 'b']);
    const script = parseLogQuery({ range: 'last_7_days' }, NOW);
    expect(script.ok && ids(queries.entries(script.query))).toHaveLength(4);
  });
});

describe('analytics queries: the API key and the city match case and all, as in API Umbrella', () => {
  const db = tempStore();
  new AnalyticsWriter(db).writeEntries([
    entry({ request_id: 'upper', api_key_preview: 'AbCd…', request_ip: '192.0.2.1' }),
    entry({ request_id: 'lower', api_key_preview: 'abcd…', request_ip: '192.0.2.2' }),
    entry({ request_id: 'none', api_key_preview: null, user_id: null, user_email: null, request_ip: '192.0.2.3' }),
  ]);
  const place = db.prepare('INSERT INTO analytics_ip_locations (request_ip, country, region, city) VALUES (?, ?, ?, ?)');
  place.run('192.0.2.1', 'US', 'VA', 'Richmond');
  place.run('192.0.2.2', 'US', 'CA', 'North Richmond');
  const queries = new AnalyticsQueries(db);
  const match = (rules: unknown[]) => ids(queries.entries(filtered(rules)));

  it('the API key', () => {
    expect(match([{ field: 'api_key_preview', operator: 'equal', value: 'abcd…' }])).toEqual(['lower']);
    expect(match([{ field: 'api_key_preview', operator: 'not_equal', value: 'abcd…' }])).toEqual(['none', 'upper']);
    expect(match([{ field: 'api_key_preview', operator: 'begins_with', value: 'ab' }])).toEqual(['lower']);
    expect(match([{ field: 'api_key_preview', operator: 'begins_with', value: 'Ab' }])).toEqual(['upper']);
    expect(match([{ field: 'api_key_preview', operator: 'not_begins_with', value: 'ab' }])).toEqual(['none', 'upper']);
    expect(match([{ field: 'api_key_preview', operator: 'contains', value: 'Cd' }])).toEqual(['upper']);
    expect(match([{ field: 'api_key_preview', operator: 'not_contains', value: 'cd' }])).toEqual(['none', 'upper']);
    // No LIKE here, so no wildcards either.
    expect(match([{ field: 'api_key_preview', operator: 'begins_with', value: '_' }])).toEqual([]);
    expect(match([{ field: 'api_key_preview', operator: 'contains', value: '%' }])).toEqual([]);
  });

  it("the IP's city, where the country and region match whatever the case", () => {
    expect(match([{ field: 'request_ip_city', operator: 'equal', value: 'richmond' }])).toEqual([]);
    expect(match([{ field: 'request_ip_city', operator: 'begins_with', value: 'rich' }])).toEqual([]);
    expect(match([{ field: 'request_ip_city', operator: 'begins_with', value: 'Rich' }])).toEqual(['upper']);
    expect(match([{ field: 'request_ip_city', operator: 'contains', value: 'Richmond' }])).toEqual(['lower', 'upper']);
    expect(match([{ field: 'request_ip_city', operator: 'contains', value: 'richmond' }])).toEqual([]);
    expect(match([{ field: 'request_ip_city', operator: 'not_contains', value: 'North' }])).toEqual(['none', 'upper']);
    expect(match([{ field: 'request_ip_country', operator: 'equal', value: 'us' }])).toEqual(['lower', 'upper']);
    expect(match([{ field: 'request_ip_region', operator: 'not_equal', value: 'va' }])).toEqual(['lower', 'none']);
  });
});

describe('analytics queries: ranges, order and paging', () => {
  it('includes the whole end date and nothing outside the range', () => {
    const day = (offset: number) => T0 - (T0 % DAY) + offset;
    const queries = storeWith([
      entry({ request_id: 'before', request_at: day(-1) }),
      entry({ request_id: 'first', request_at: day(0) }),
      entry({ request_id: 'last', request_at: day(2 * DAY - 1) }),
      entry({ request_id: 'after', request_at: day(2 * DAY) }),
    ]);
    const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const range = view({ range: undefined, start_at: date(day(0)), end_at: date(day(DAY)) });
    expect(ids(queries.entries(range))).toEqual(['first', 'last']);
  });

  it('sorts by any field either way and pages through', () => {
    const queries = storeWith([10, 30, 20, 40, 50].map((time, index) => entry({ request_id: `r${time}`, response_time: time, request_at: T0 + index })));
    const page = (order: string, start: number) => queries.entries(view({ order, start: String(start), length: '2' })).map((row) => row.request_id);
    expect(page('response_time:desc', 0)).toEqual(['r50', 'r40']);
    expect(page('response_time:desc', 2)).toEqual(['r30', 'r20']);
    expect(page('response_time', 0)).toEqual(['r10', 'r20']);
    expect(page('request_at:desc', 4)).toEqual(['r10']);
  });

  it('streams every match exactly once for CSV, in batches, newest first, even when times tie', () => {
    const entries = Array.from({ length: 25 }, (_, index) => entry({ request_id: `r${index}`, request_at: T0 + Math.floor(index / 4) }));
    const queries = storeWith(entries);
    const rows = [...queries.csvRows(view({}), 3)];
    expect(rows.every((row) => row.length === FIELDS.length)).toBe(true);
    expect(rows.map((row) => row[1]).sort()).toEqual(entries.map((e) => e.request_id).sort());
    const times = rows.map((row) => Date.parse(String(row[0])));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(rows[0]![0]).toBe(new Date(T0 + 6).toISOString());
  });
});

describe('analytics queries: highlights, chart and users', () => {
  const start = T0 - (T0 % DAY) - 6 * DAY;
  const entries = [
    entry({ request_at: start + 1_000, user_id: 'u1', user_email: 'one@example.com', request_ip: '192.0.2.1', response_time: 10 }),
    entry({ request_at: start + 2_000, user_id: 'u1', user_email: 'one@example.com', request_ip: '192.0.2.2', response_time: 20 }),
    entry({ request_at: start + DAY, user_id: 'u2', user_email: 'two@example.com', request_ip: '192.0.2.1', response_time: 30 }),
    entry({ request_at: start + 3 * DAY, user_id: 'u1', user_email: 'one@example.com', request_ip: '192.0.2.1', response_time: 60 }),
    entry({ request_at: start + 3 * DAY, user_id: null, user_email: null, request_ip: '198.51.100.7', response_time: 1, gatekeeper_denied_code: 'api_key_missing' }),
  ];
  const queries = storeWith(entries);

  it("answers a page's default view: allowed requests only, per day", () => {
    const parsed = parseLogQuery({ range: 'last_7_days' }, NOW, PAGE_DEFAULTS);
    const summary = queries.summary(parsed.ok ? parsed.query : (undefined as never));
    expect(summary).toMatchObject({ hits: 4, unique_users: 2, unique_ips: 2, average_response_time: 30 });
    expect(summary.top_users).toEqual([
      { user_id: 'u1', user_email: 'one@example.com', hits: 3, last_request_at: start + 3 * DAY },
      { user_id: 'u2', user_email: 'two@example.com', hits: 1, last_request_at: start + DAY },
    ]);
    expect(summary.top_ips).toEqual([{ request_ip: '192.0.2.1', hits: 3 }, { request_ip: '192.0.2.2', hits: 1 }]);
    expect(summary.chart.map((point) => point.hits)).toEqual([2, 1, 0, 1, 0, 0, 0]);
    expect(summary.chart[0]!.start_at).toBe(start);
  });

  it('gives the same answer from the daily rollups as from the rows', () => {
    const fromRollups = queries.summary(view({}));
    // A filter that matches everything forces the row scan.
    const fromRows = queries.summary(filtered([{ field: 'request_at', operator: 'greater', value: 0 }]));
    expect(fromRollups).toEqual(fromRows);
    expect(fromRollups.hits).toBe(5);
    expect(queries.userHits(view({}))).toEqual(queries.userHits(filtered([{ field: 'request_at', operator: 'greater', value: 0 }])));
  });

  it('charts a view that picks contexts (bucketing its rows once) as it charts one that does not (a count per bucket), at every interval', () => {
    // u1's requests, and no others, took 10, 20 and 60 ms: a filter on the user and one on the times pick the same rows.
    const byContext = JSON.stringify([{ field: 'user_id', operator: 'equal', value: 'u1' }]);
    const byOwnFields = JSON.stringify([{ field: 'response_time', operator: 'greater', value: 5 }, { field: 'response_time', operator: 'not_equal', value: 30 }]);
    for (const interval of ['hour', 'day', 'week', 'month']) {
      const picked = queries.summary(view({ query: byContext, interval }));
      expect(picked, interval).toEqual(queries.summary(view({ query: byOwnFields, interval })));
      expect(picked.chart.reduce((sum, point) => sum + point.hits, 0)).toBe(3);
      expect(picked.average_response_time).toBe(30);
    }
  });

  it('names each user by the email of their last request, from the rollups as from the rows', () => {
    const day = T0 - (T0 % DAY) - 2 * DAY;
    const changed = storeWith([
      entry({ request_at: day + 1_000, user_id: 'u1', user_email: 'zed@example.com' }),
      entry({ request_at: day + 2_000, user_id: 'u1', user_email: 'new@example.com' }),
      entry({ request_at: day - DAY, user_id: 'u2', user_email: 'zoe@example.com' }),
      entry({ request_at: day, user_id: 'u2', user_email: 'amy@example.com' }),
    ]);
    const emails = (users: { user_id: string; user_email: string | null }[]) => Object.fromEntries(users.map((user) => [user.user_id, user.user_email]));
    const expected = { u1: 'new@example.com', u2: 'amy@example.com' };
    expect(emails(changed.userHits(view({})))).toEqual(expected);
    expect(emails(changed.userHits(filtered([{ field: 'request_at', operator: 'greater', value: 0 }])))).toEqual(expected);
  });

  it('buckets by hour, week and month', () => {
    expect(queries.summary(view({ interval: 'hour', range: 'today' })).chart).toHaveLength(24);
    const weeks = queries.summary(view({ interval: 'week' })).chart;
    expect(weeks.reduce((sum, point) => sum + point.hits, 0)).toBe(5);
    expect(new Date(weeks[0]!.start_at).getUTCDay()).toBe(1);
    const months = queries.summary(view({ interval: 'month' })).chart;
    expect(months.map((point) => new Date(point.start_at).toISOString().slice(0, 10))).toEqual(['2026-01-01']);
  });

  it('lists hits and last request per user, most hits first', () => {
    expect(queries.userHits(view({})).map((user) => [user.user_email, user.hits])).toEqual([['one@example.com', 3], ['two@example.com', 1]]);
  });
});

describe('analytics queries: indexes', () => {
  const planOf = (rules: unknown[]) => {
    const db = tempStore();
    const where = whereSql(filtered(rules));
    const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT count(*) AS hits, total(response_time) AS time FROM analytics_logs WHERE ${where.sql}`).all(...where.params) as { detail: string }[];
    return plan.map((step) => step.detail);
  };

  it('answer the default view (denied requests hidden) from the time index alone, reading neither rows nor contexts', () => {
    expect(planOf([{ field: 'gatekeeper_denied_code', operator: 'is_null' }])).toEqual([expect.stringContaining('USING COVERING INDEX analytics_requests_request_at')]);
  });

  it('answer a view filtered on one backend from the time index alone, the backend\'s contexts picked once, without reading rows', () => {
    const plan = planOf([{ field: 'api_backend_id', operator: 'equal', value: 'backend-1' }]);
    expect(plan[0]).toContain('USING COVERING INDEX analytics_requests_request_at');
    expect(plan[1]).toBe('LIST SUBQUERY 1');
    expect(plan.join('\n')).not.toContain('CORRELATED');
  });
});

describe("analytics queries: API Umbrella's filter on api_key, the whole key", () => {
  const KEY = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789wxyz';
  const db = tempStore();
  new AnalyticsWriter(db).writeEntries([
    entry({ request_id: 'theirs', api_key_preview: 'AbCdEf...', request_ip: '192.0.2.1' }),
    entry({ request_id: 'other', api_key_preview: 'ZyXwVu...', request_ip: '192.0.2.2' }),
    entry({ request_id: 'none', api_key_preview: null, user_id: null, user_email: null, request_ip: '192.0.2.3' }),
  ]);
  const queries = new AnalyticsQueries(db);
  const match = (rules: unknown[]) => ids(queries.entries(filtered(rules)));

  it('compares its preview, as only the preview is logged', () => {
    expect(match([{ field: 'api_key', operator: 'equal', value: KEY }])).toEqual(['theirs']);
    expect(match([{ field: 'api_key', operator: 'not_equal', value: KEY }])).toEqual(['none', 'other']);
    expect(match([{ id: 'api_key', operator: 'equal', value: 'AbCdEf...' }])).toEqual(['theirs']);
    expect(match([{ field: 'api_key', operator: 'begins_with', value: 'ZyX' }])).toEqual(['other']);
    expect(match([{ field: 'api_key', operator: 'is_null', value: null }])).toEqual(['none']);
  });
});
