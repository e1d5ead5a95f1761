// API Drilldown: hits per host, then per path segment under one, over the
// same range and filters as Filter Logs, in API Umbrella's JSON shape (its
// hits_over_time is a Google Charts data table: the top ten paths and Other).
// API Umbrella stores each request's hierarchy; here it is cut from
// request_host || request_path when asked, which costs a scan of the range's
// rows (in the reader thread) instead of a column on every stored entry.
import type { Db } from '../store/db.js';
import { childPrefix, type DrilldownQuery } from './query/drilldown-prefix.js';
import { buckets, type Interval } from './query/intervals.js';
import { whereSql } from './query/where-sql.js';

export interface DrilldownResult {
  readonly depth: number;
  /** "host/" at depth 0, then "host/segment/…/segment" (a trailing "/" when there is more below). */
  readonly path: string;
  /** Nothing is listed below it. */
  readonly terminal: boolean;
  /** The prefix that lists what is below it. */
  readonly descendent_prefix: string;
  readonly hits: number;
}

export interface ChartColumn {
  readonly id: string;
  readonly label: string;
  readonly type: 'datetime' | 'number';
}

export interface ChartRow {
  readonly c: readonly { readonly v: number; readonly f: string }[];
}

export interface Drilldown {
  readonly results: readonly DrilldownResult[];
  readonly hits_over_time: { readonly cols: readonly ChartColumn[]; readonly rows: readonly ChartRow[] };
}

/** Paths charted one by one; the rest are summed as Other. */
const CHARTED = 10;
const HOST_AND_PATH = 'request_host || request_path';

export function drilldown(db: Db, query: DrilldownQuery): Drilldown {
  const { depth, text, base } = query.prefix;
  const where = whereSql(query);
  // The next level of each matching row: the base, then the row's path up to and including its next "/".
  const statement = db.prepare(
    `SELECT ? || CASE WHEN instr(rest, '/') > 0 THEN substr(rest, 1, instr(rest, '/')) ELSE rest END AS path, count(*) AS hits
     FROM (SELECT substr(${HOST_AND_PATH}, ?) AS rest FROM analytics_logs
           WHERE ${where.sql} AND substr(${HOST_AND_PATH}, 1, ?) = ? AND length(${HOST_AND_PATH}) > ?)
     GROUP BY path`,
  );
  const filters = where.params.slice(2);
  // One indexed range per interval; the buckets cover the range exactly, so their sums are the totals.
  const perBucket = buckets(query.range, query.interval).map((bucket) => ({
    start: bucket.start,
    hits: new Map((statement.all(base, base.length + 1, bucket.from, bucket.to, ...filters, text.length, text, base.length) as { path: string; hits: number }[]).map((row) => [row.path, row.hits])),
  }));
  const totals = new Map<string, number>();
  for (const bucket of perBucket) for (const [path, hits] of bucket.hits) totals.set(path, (totals.get(path) ?? 0) + hits);
  const results = [...totals]
    .sort(([pathA, hitsA], [pathB, hitsB]) => hitsB - hitsA || (pathA < pathB ? -1 : 1))
    .map(([path, hits]) => ({ depth, path, terminal: !path.endsWith('/'), descendent_prefix: childPrefix(depth, path), hits }));
  const charted = results.slice(0, CHARTED).map((result) => result.path);
  const cols: ChartColumn[] = [
    { id: 'date', label: 'Date', type: 'datetime' },
    ...charted.map((path) => ({ id: `${depth}/${path}`, label: path, type: 'number' as const })),
    ...(results.length > CHARTED ? [{ id: 'other', label: 'Other', type: 'number' as const }] : []),
  ];
  const rows = perBucket.map(({ start, hits }) => {
    const values = charted.map((path) => hits.get(path) ?? 0);
    if (results.length > CHARTED) values.push([...hits.values()].reduce((sum, count) => sum + count, 0) - values.reduce((sum, count) => sum + count, 0));
    return { c: [{ v: start, f: bucketName(start, query.interval) }, ...values.map((value) => ({ v: value, f: value.toLocaleString('en-US') }))] };
  });
  return { results, hits_over_time: { cols, rows } };
}

/** "Wed, Jan 14, 2015" as API Umbrella writes a day (UTC here), with the time for minutes and hours. */
function bucketName(ms: number, interval: Interval): string {
  const date = new Date(ms);
  if (interval === 'month') return date.toLocaleDateString('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });
  const day = date.toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
  return interval === 'minute' || interval === 'hour' ? `${day} ${date.toISOString().slice(11, 16)}` : day;
}
