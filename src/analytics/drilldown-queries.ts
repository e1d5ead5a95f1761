// API Drilldown: hits per host, then per path segment under one, over the
// same range and filters as Filter Logs, in API Umbrella's JSON shape (its
// hits_over_time is a Google Charts data table: the top ten paths and Other).
// API Umbrella stores each request's hierarchy; here it is cut from
// request_host || request_path when asked, which costs a scan of the range's
// rows (in the reader thread) instead of a column on every stored entry.
import type { Db } from '../store/db.js';
import { breadcrumbs, childPrefix, MAX_DEPTH, type Breadcrumb, type DrilldownQuery } from './query/drilldown-prefix.js';
import { hitsLabel, intervalLabel } from './interval-labels.js';
import { buckets } from './query/intervals.js';
import { zoneOf } from './query/log-query.js';
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
  /** Every path of the level, most hits first (API Umbrella's JSON shows the first RESULTS_SHOWN). */
  readonly results: readonly DrilldownResult[];
  readonly hits_over_time: { readonly cols: readonly ChartColumn[]; readonly rows: readonly ChartRow[] };
  readonly breadcrumbs: readonly Breadcrumb[];
}

/** The paths a page or JSON answer lists, as API Umbrella's drilldown_size; the CSV has them all. */
export const RESULTS_SHOWN = 500;

/** Paths charted one by one; the rest are summed as Other. */
const CHARTED = 10;
/**
 * A request's place in the hierarchy, as API Umbrella's log_utils cuts it:
 * the host in lowercase, then the path with runs of "/" as one and no "/" at
 * the end ("/v1/" and "/v1" are one path; "/" is the host itself), so the
 * hits listed under a path add up to its own.
 */
const HIERARCHY =
  "lower(request_host) || rtrim(CASE WHEN instr(request_path, '//') > 0 THEN replace(replace(replace(request_path, '//', '/'), '//', '/'), '//', '/') ELSE request_path END, '/')";

export function drilldown(db: Db, query: DrilldownQuery): Drilldown {
  const { depth, text, base } = query.prefix;
  const zone = zoneOf(query);
  const where = whereSql(query);
  // The next level of each matching row: the base, then the rest of its place up to and including the next "/".
  // Lengths are SQLite's (characters), measured on the bound text itself. LIMIT -1 keeps SQLite from
  // flattening the subqueries, which would compute each row's place once per use instead of once.
  const statement = db.prepare(
    `SELECT ? || CASE WHEN instr(rest, '/') > 0 THEN substr(rest, 1, instr(rest, '/')) ELSE rest END AS path, count(*) AS hits
     FROM (SELECT substr(place, length(?) + 1) AS rest
           FROM (SELECT ${HIERARCHY} AS place FROM analytics_logs WHERE ${where.sql} LIMIT -1)
           WHERE substr(place, 1, length(?)) = ? AND length(place) > length(?) LIMIT -1)
     GROUP BY path`,
  );
  const filters = where.params.slice(2);
  // One indexed range per interval; the buckets cover the range exactly, so their sums are the totals.
  const perBucket = buckets(query.range, query.interval, zone).map((bucket) => ({
    start: bucket.start,
    hits: new Map((statement.all(base, base, bucket.from, bucket.to, ...filters, text, text, base) as { path: string; hits: number }[]).map((row) => [row.path, row.hits])),
  }));
  const totals = new Map<string, number>();
  for (const bucket of perBucket) for (const [path, hits] of bucket.hits) totals.set(path, (totals.get(path) ?? 0) + hits);
  const results = [...totals]
    .sort(([pathA, hitsA], [pathB, hitsB]) => hitsB - hitsA || (pathA < pathB ? -1 : 1))
    .map(([path, hits]) => ({ depth, path, terminal: !path.endsWith('/') || depth >= MAX_DEPTH, descendent_prefix: childPrefix(depth, path), hits }));
  const charted = results.slice(0, CHARTED).map((result) => result.path);
  const cols: ChartColumn[] = [
    { id: 'date', label: 'Date', type: 'datetime' },
    ...charted.map((path) => ({ id: `${depth}/${path}`, label: path, type: 'number' as const })),
    ...(results.length > CHARTED ? [{ id: 'other', label: 'Other', type: 'number' as const }] : []),
  ];
  const rows = perBucket.map(({ start, hits }) => {
    const values = charted.map((path) => hits.get(path) ?? 0);
    if (results.length > CHARTED) values.push([...hits.values()].reduce((sum, count) => sum + count, 0) - values.reduce((sum, count) => sum + count, 0));
    return { c: [{ v: start, f: intervalLabel(query.interval, start, zone) }, ...values.map((value) => ({ v: value, f: hitsLabel(value) }))] };
  });
  return { results, hits_over_time: { cols, rows }, breadcrumbs: breadcrumbs(query.prefix) };
}
