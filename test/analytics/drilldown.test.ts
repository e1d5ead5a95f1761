// Analytics › API Drilldown, as API Umbrella's drilldown tests check it:
// hosts first, then one path segment per level, with the top ten charted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalyticsWriter } from '../../src/analytics/writer.js';
import { AnalyticsQueries } from '../../src/analytics/log-queries.js';
import { parseDrilldownPrefix, parseDrilldownQuery } from '../../src/analytics/query/drilldown-prefix.js';
import { DEFAULT_RULES } from '../../src/analytics/query/filter-rules.js';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { DAY, entry, T0, tempStore } from './fixtures.js';
import { PAGE_DEFAULT_QUERY, shownDays, startAnalyticsFixture, type AnalyticsFixture } from './support.js';

const NOW = T0 + 3_600_000;
const at = (host: string, path: string, count: number, overrides: Partial<AnalyticsEntry> = {}) =>
  Array.from({ length: count }, () => entry({ request_host: host, request_path: path, ...overrides }));

function drill(entries: AnalyticsEntry[], params: Record<string, string>) {
  const db = tempStore();
  new AnalyticsWriter(db).writeEntries(entries);
  const parsed = parseDrilldownQuery({ range: 'last_7_days', ...params }, NOW);
  if (!parsed.ok) throw new Error(parsed.error);
  return new AnalyticsQueries(db).drilldown(parsed.query);
}

describe('the drilldown prefix', () => {
  it('is a depth and the start of "host/path", the depth counting its whole segments', () => {
    expect(parseDrilldownPrefix(undefined)).toEqual({ ok: true, prefix: { depth: 0, text: '', base: '' } });
    expect(parseDrilldownPrefix('1/example.com/')).toEqual({ ok: true, prefix: { depth: 1, text: 'example.com/', base: 'example.com/' } });
    expect(parseDrilldownPrefix('0/.')).toEqual({ ok: true, prefix: { depth: 0, text: '.', base: '' } });
    for (const bad of ['1/', '2/example.com/', 'x/', '/example.com/', '0/a/']) expect(parseDrilldownPrefix(bad).ok, bad).toBe(false);
  });
});

describe('drilldown results', () => {
  const entries = [
    ...at('127.0.0.1', '/hello', 2),
    ...at('example.com', '/hello', 1),
    ...at('example.com', '/v1/weather/today', 3),
    ...at('example.com', '/v1/energy', 1),
    ...at('example.com', '/', 1),
    ...at('example.com', '/v1/weather/today', 5, { gatekeeper_denied_code: 'api_key_missing' }),
  ];
  /** The pages' default filter: the denied requests above left out. */
  const allowed = { query: JSON.stringify(DEFAULT_RULES) };

  it('lists the hosts at depth 0, most hits first, with the prefix one level down; "/" is the host itself', () => {
    const { results, breadcrumbs } = drill(entries, allowed);
    expect(results).toEqual([
      { depth: 0, path: 'example.com/', terminal: false, descendent_prefix: '1/example.com/', hits: 5 },
      { depth: 0, path: '127.0.0.1/', terminal: false, descendent_prefix: '1/127.0.0.1/', hits: 2 },
      { depth: 0, path: 'example.com', terminal: true, descendent_prefix: '1/example.com', hits: 1 },
    ]);
    expect(breadcrumbs).toEqual([{ crumb: 'All Hosts', prefix: '0/' }]);
  });

  it('counts a path with and without its trailing "/", and with doubled "/", as one, and hosts in any case as one, so each level adds up', () => {
    const mixed = [...at('Ex.COM', '/v1/', 3), ...at('ex.com', '/v1', 1), ...at('ex.com', '//v1//a/', 2), ...at('ex.com', '/v1/a', 1)];
    const hosts = drill(mixed, {}).results;
    expect(hosts.map((result) => [result.path, result.hits])).toEqual([['ex.com/', 7]]);
    expect(drill(mixed, { prefix: '1/ex.com/' }).results.map((result) => [result.path, result.hits])).toEqual([
      ['ex.com/v1', 4],
      ['ex.com/v1/', 3],
    ]);
    expect(drill(mixed, { prefix: '2/ex.com/v1/' }).results.map((result) => [result.path, result.terminal, result.hits])).toEqual([['ex.com/v1/a', true, 3]]);
  });

  it('lists paths at the deepest prefix as ends, so no link leads past it', () => {
    const deep = at('h', `/${'a/'.repeat(102)}z`, 1);
    const { results } = drill(deep, { prefix: `100/h/${'a/'.repeat(99)}` });
    expect(results).toEqual([{ depth: 100, path: `h/${'a/'.repeat(100)}`, terminal: true, descendent_prefix: `101/h/${'a/'.repeat(100)}`, hits: 1 }]);
  });

  it('measures text as SQLite does: a path with characters outside the BMP matches its prefix', () => {
    const emoji = at('ex.com', '/😀/x', 1);
    expect(drill(emoji, { prefix: '2/ex.com/😀/' }).results.map((result) => result.path)).toEqual(['ex.com/😀/x']);
  });

  it('lists the first path segment under a host: a trailing "/" when more follows, terminal when not', () => {
    const { results } = drill(entries, { prefix: '1/example.com/', ...allowed });
    expect(results).toEqual([
      { depth: 1, path: 'example.com/v1/', terminal: false, descendent_prefix: '2/example.com/v1/', hits: 4 },
      { depth: 1, path: 'example.com/hello', terminal: true, descendent_prefix: '2/example.com/hello', hits: 1 },
    ]);
    expect(drill(entries, { prefix: '2/example.com/v1/' }).breadcrumbs).toEqual([
      { crumb: 'All Hosts', prefix: '0/' },
      { crumb: 'example.com', prefix: '1/example.com/' },
      { crumb: 'v1', prefix: '2/example.com/v1/' },
    ]);
    expect(drill(entries, { prefix: '2/example.com/v1/', ...allowed }).results.map((result) => [result.path, result.hits])).toEqual([
      ['example.com/v1/weather/', 3],
      ['example.com/v1/energy', 1],
    ]);
  });

  it('matches the prefix as text: "." and "%" are not patterns', () => {
    const tricky = [...at('example.com', '/a', 1), ...at('.com', '/a', 1), ...at('x%com', '/a', 1)];
    expect(drill(tricky, { prefix: '0/.' }).results.map((result) => result.path)).toEqual(['.com/']);
    expect(drill(tricky, { prefix: '0/x%' }).results.map((result) => result.path)).toEqual(['x%com/']);
  });

  it("takes the same filters as Filter Logs: without a query every request counts, as in API Umbrella; the pages' default leaves denied ones out", () => {
    expect(drill(entries, { prefix: '1/example.com/' }).results[0]).toMatchObject({ path: 'example.com/v1/', hits: 9 });
    expect(drill(entries, { prefix: '1/example.com/', query: '' }).results[0]).toMatchObject({ path: 'example.com/v1/', hits: 9 });
    expect(drill(entries, { prefix: '1/example.com/', ...allowed }).results[0]).toMatchObject({ path: 'example.com/v1/', hits: 4 });
  });

  it('charts the top ten per interval and sums the rest as Other', () => {
    const many = Array.from({ length: 12 }, (_, index) => at(`host${index}.example`, '/x', index + 1, { request_at: T0 - DAY })).flat();
    const { results, hits_over_time } = drill(many, { interval: 'day' });
    expect(results).toHaveLength(12);
    expect(hits_over_time.cols.map((col) => col.id)).toEqual(['date', ...Array.from({ length: 10 }, (_, index) => `0/host${11 - index}.example/`), 'other']);
    expect(hits_over_time.cols[0]).toEqual({ id: 'date', label: 'Date', type: 'datetime' });
    expect(hits_over_time.rows).toHaveLength(7);
    const day = hits_over_time.rows.find((row) => row.c[0]!.v === Date.UTC(2026, 0, 14))!;
    expect(day.c[0]!.f).toBe('Wed, Jan 14, 2026');
    expect(day.c.slice(1).map((cell) => cell.v)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 3]);
  });
});

describe('the drilldown endpoints and page', () => {
  let fx: AnalyticsFixture;
  beforeAll(async () => {
    fx = await startAnalyticsFixture();
    const { analytics } = fx.gw.context;
    for (const item of [...at('api.example.com', '/v1/weather', 3, { request_at: Date.now() }), ...at('api.example.com', '/v1/<b>x<b>', 1, { request_at: Date.now() })]) analytics.record(item);
    analytics.flush();
  });
  afterAll(() => fx.close());

  it("answers JSON at Parasol's path and at API Umbrella's", async () => {
    for (const path of ['/admin/stats/drilldown.json', '/api-umbrella/v1/analytics/drilldown.json']) {
      const { status, body } = await fx.stats(path, { prefix: '2/api.example.com/v1/' });
      expect(status).toBe(200);
      expect(body.results.map((result: { path: string; hits: number }) => [result.path, result.hits])).toEqual([
        ['api.example.com/v1/weather', 3],
        ['api.example.com/v1/<b>x<b>', 1],
      ]);
    }
  });

  it('answers a malformed prefix with 400, and a CSV of the list', async () => {
    const bad = await fx.stats('/admin/stats/drilldown.json', { prefix: '3/api.example.com/' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('does not name 3 levels');
    const csv = await fx.stats('/api-umbrella/v1/analytics/drilldown.csv', { prefix: '1/api.example.com/' });
    expect(csv.status).toBe(200);
    expect(csv.text).toBe('Path,Hits\napi.example.com/v1/,4\n');
  });

  it('shows the levels, links one level down, keeps the prefix in the form, and escapes paths', async () => {
    const root = await fx.page('/admin/analytics/drilldown');
    expect(root.status).toBe(200);
    // The menu marks this page as the current one, not Filter Logs.
    expect(root.text).toContain('<a href="/admin/analytics/drilldown" aria-current="page">API Drilldown</a>');
    expect(root.text).toContain('<a href="/admin/analytics/logs">Filter Logs</a>');
    expect(root.text).toContain('href="/admin/analytics/drilldown?range=last_14_days&amp;prefix=1%2Fapi.example.com%2F"');
    const level = await fx.page('/admin/analytics/drilldown?range=last_14_days&prefix=2%2Fapi.example.com%2Fv1%2F');
    expect(level.text).toContain('<input type="hidden" name="prefix" value="2/api.example.com/v1/">');
    expect(level.text).toMatch(/<a href="\/admin\/analytics\/drilldown\?range=last_14_days&amp;prefix=1%2Fapi.example.com%2F">api.example.com<\/a>/);
    expect(level.text).toContain('<strong aria-current="page">v1</strong>');
    expect(level.text).toContain('api.example.com/v1/&lt;b&gt;x&lt;b&gt;');
    expect(level.text).not.toContain('<b>x<b>');
    expect(level.text).toContain(`href="/admin/stats/drilldown.csv?${shownDays(14)}&amp;${PAGE_DEFAULT_QUERY}&amp;prefix=2%2Fapi.example.com%2Fv1%2F"`);
    const bad = await fx.page('/admin/analytics/drilldown?prefix=9%2F');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('data-testid="query-error"');
  });
});
