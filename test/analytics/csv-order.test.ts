// logs.csv in the order logs.json sorts on: any field, either way, NULLs
// where SQLite puts them (first ascending, last descending), ties by id the
// same way, read in keyset batches whose boundaries fall inside runs of ties.
import { describe, expect, it } from 'vitest';
import { FIELDS, type FieldName } from '../../src/analytics/fields.js';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { AnalyticsQueries } from '../../src/analytics/log-queries.js';
import { parseLogQuery, type LogQuery } from '../../src/analytics/query/log-query.js';
import { AnalyticsWriter } from '../../src/analytics/writer.js';
import { entry, T0, tempStore } from './fixtures.js';
import { EVERYTHING, startAnalyticsFixture } from './support.js';

const NOW = T0 + 3_600_000;
const REQUEST_ID = FIELDS.findIndex((info) => info.name === 'request_id');

/**
 * 40 entries written oldest first (so their ids go up with their number),
 * with few distinct values per field: every value is shared by several
 * entries, and some fields are empty on some.
 */
const ENTRIES: AnalyticsEntry[] = Array.from({ length: 40 }, (_, n) =>
  entry({
    request_id: `e${n}`,
    request_at: T0 - 1_000 * (n % 5),
    response_time: [30, 10, 20, 10][n % 4]!,
    upstream_time: n % 3 === 0 ? null : [25, 8][n % 2]!,
    request_referer: n % 4 === 0 ? null : n % 7 === 0 ? '' : `https://ref.example/${'bca'[n % 3]}`,
    // Contexts: the user and the IP are the client's.
    user_id: n % 6 === 0 ? null : `u${n % 3}`,
    user_email: n % 6 === 0 ? null : `${'zay'[n % 3]}@example.com`,
    request_ip: `192.0.2.${n % 4}`,
  }),
);
/** Where the IPs are: 192.0.2.3 is placed nowhere. */
const PLACES = [['192.0.2.0', 'US', 'Golden'], ['192.0.2.1', 'FR', 'Paris'], ['192.0.2.2', 'US', 'Denver']];

function store(): AnalyticsQueries {
  const db = tempStore();
  new AnalyticsWriter(db).writeEntries(ENTRIES);
  const place = db.prepare('INSERT INTO analytics_ip_locations (request_ip, country, city) VALUES (?, ?, ?)');
  for (const [ip, country, city] of PLACES) place.run(ip, country, city);
  return new AnalyticsQueries(db);
}

function view(order: string, params: Record<string, string> = {}): LogQuery {
  const parsed = parseLogQuery({ range: 'last_7_days', query: '[]', order, length: '1000', ...params }, NOW);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.query;
}

/** The entries' request ids as SQLite orders them: NULLs first ascending, last descending, ties by id (here, the entry's number) the same way. */
function expected(field: FieldName, direction: 'asc' | 'desc'): string[] {
  const valueOf = (n: number): string | number | null => {
    const ip = ENTRIES[n]!.request_ip;
    if (field === 'request_ip_country') return PLACES.find((place) => place[0] === ip)?.[1] ?? null;
    if (field === 'request_ip_city') return PLACES.find((place) => place[0] === ip)?.[2] ?? null;
    return ENTRIES[n]![field as keyof AnalyticsEntry];
  };
  const ascending = (a: number, b: number): number => {
    const [x, y] = [valueOf(a), valueOf(b)];
    if (x === y) return a - b;
    if (x === null) return -1;
    if (y === null) return 1;
    return x < y ? -1 : 1;
  };
  const numbers = ENTRIES.map((_, n) => n).sort(ascending);
  return (direction === 'asc' ? numbers : numbers.reverse()).map((n) => `e${n}`);
}

const csvIds = (queries: AnalyticsQueries, query: LogQuery, size: number, idsPerPass?: number) => [...queries.csvRows(query, size, idsPerPass)].map((row) => row[REQUEST_ID]);

describe('logs.csv in the order of logs.json', () => {
  const queries = store();

  it.each([
    // A number field of the row, with ties; and one with NULLs.
    ['response_time', 'asc'],
    ['response_time', 'desc'],
    ['upstream_time', 'asc'],
    ['upstream_time', 'desc'],
    // A text field of the row with NULLs and empty text.
    ['request_referer', 'asc'],
    ['request_referer', 'desc'],
    // A field of the client's context, with NULLs.
    ['user_email', 'asc'],
    ['user_email', 'desc'],
    // Where the IP is, by a lookup: NULL where the IP is placed nowhere.
    ['request_ip_country', 'asc'],
    ['request_ip_country', 'desc'],
    ['request_ip_city', 'desc'],
    // The time index's own order, both ways.
    ['request_at', 'asc'],
    ['request_at', 'desc'],
  ] as const)('sorts on %s %s, NULLs as SQLite puts them and ties by id, across batches and passes', (field, direction) => {
    const order = `${field}:${direction}`;
    const want = expected(field, direction);
    // Batches of 3 and passes of 7 ids: every boundary falls somewhere inside a run of equal values.
    expect(csvIds(queries, view(order), 3, 7)).toEqual(want);
    // One batch and pass for everything; and the page logs.json shows.
    expect(csvIds(queries, view(order), 1_000)).toEqual(want);
    expect(queries.entries(view(order)).map((row) => row.request_id)).toEqual(want);
  });

  it('keeps the filters and the range while sorting on another field', () => {
    const rules = JSON.stringify([{ field: 'user_id', operator: 'equal', value: 'u1' }]);
    const want = expected('response_time', 'desc').filter((id) => ENTRIES[Number(id.slice(1))]!.user_id === 'u1');
    expect(want.length).toBeGreaterThan(7);
    expect(csvIds(queries, view('response_time:desc', { query: rules }), 2, 5)).toEqual(want);
  });

  it('hands out rows of every field, request_at as ISO 8601, whatever the order', () => {
    const byTime = [...queries.csvRows(view('request_at:asc'))];
    const byEmail = [...queries.csvRows(view('user_email:asc'), 4, 9)];
    expect(byEmail.every((row) => row.length === FIELDS.length)).toBe(true);
    const sorted = (rows: unknown[][]) => rows.map((row) => JSON.stringify(row)).sort();
    expect(sorted(byEmail)).toEqual(sorted(byTime));
    expect(byTime[0]![0]).toBe(new Date(T0 - 4_000).toISOString());
  });
});

describe('GET /admin/stats/logs.csv?order=…', () => {
  it('streams the entries in the order logs.json gives them, over more rows than one batch', async () => {
    const fx = await startAnalyticsFixture();
    try {
      const now = Date.now();
      // 2,500 entries, more than the reader thread's batches of 1,000, with 7 response times.
      for (let n = 0; n < 2_500; n++) fx.gw.context.analytics.record(entry({ request_id: `h${n}`, request_at: now - (n % 13), response_time: n % 7 }));
      fx.gw.context.analytics.flush();
      const csvOrder = async (order: string) => {
        const { text } = await fx.stats('/admin/stats/logs.csv', { ...EVERYTHING, order });
        return text.trim().split('\n').slice(1).map((line) => line.split(',')[REQUEST_ID]);
      };
      const jsonOrder = async (order: string) => {
        const ids: string[] = [];
        for (let start = 0; start < 2_500; start += 1_000) {
          const { body } = await fx.stats('/admin/stats/logs.json', { ...EVERYTHING, order, start: String(start), length: '1000' });
          ids.push(...body.data.map((row: { request_id: string }) => row.request_id));
        }
        return ids;
      };
      for (const order of ['response_time:asc', 'response_time:desc', 'request_at:asc']) {
        const csv = await csvOrder(order);
        expect(csv, order).toHaveLength(2_500);
        expect(csv, order).toEqual(await jsonOrder(order));
      }
      expect((await fx.stats('/admin/stats/logs.csv', { order: 'hits:desc' })).status).toBe(400);
    } finally {
      await fx.close();
    }
  });
});
