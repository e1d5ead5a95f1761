// API Umbrella's /admin/stats/search.json (stats.lua _M.search), made from
// the statistics summary.json is made of (AnalyticsQueries.statistics): the
// totals, hits per interval as Google Charts rows, and the top ten users (by
// email) and IPs, each with its rounded share of the hits, then a
// "Missing / Unknown" row for hits without one and an "Other" row, without a
// share, for the rest, as API Umbrella's aggregation_result adds them.
import { UTC, type TimeZoneName } from '../lib/time-zone.js';
import { hitsLabel, intervalLabel } from './interval-labels.js';
import type { Statistics } from './log-queries.js';
import type { Interval } from './query/intervals.js';

export interface SearchStats {
  readonly stats: {
    readonly total_hits: number;
    readonly total_users: number;
    readonly total_ips: number;
    /** Milliseconds; null without hits. */
    readonly average_response_time: number | null;
  };
  readonly hits_over_time: readonly { readonly c: readonly [{ readonly v: number; readonly f: string }, { readonly v: number; readonly f: string }] }[];
  readonly aggregations: { readonly users: readonly TermCount[]; readonly ips: readonly TermCount[] };
}

export interface TermCount {
  readonly key: string;
  readonly count: number;
  /** Of all hits, rounded to a whole number; "Other" has none, as in API Umbrella. */
  readonly percent?: number;
}

/** As API Umbrella's search:aggregate_by_users(10) and aggregate_by_request_ip(10). */
const TOP = 10;
const MISSING = 'Missing / Unknown';
const OTHER = 'Other';

/** `zone`: the view's, whose clock and calendar label the intervals. */
export function searchStats(statistics: Statistics, interval: Interval, zone: TimeZoneName = UTC): SearchStats {
  const { hits } = statistics;
  return {
    stats: { total_hits: hits, total_users: statistics.users.length, total_ips: statistics.ips.length, average_response_time: statistics.average_response_time },
    hits_over_time: statistics.chart.map((point) => ({ c: [{ v: point.start_at, f: intervalLabel(interval, point.start_at, zone) }, { v: point.hits, f: hitsLabel(point.hits) }] })),
    aggregations: {
      // A user by the email of their last request in the view (API Umbrella counts by user_email), or their id without one.
      users: termCounts(statistics.users.map((user) => ({ key: user.user_email ?? user.user_id, count: user.hits })), hits),
      ips: termCounts(statistics.ips.map((ip) => ({ key: ip.request_ip, count: ip.hits })), hits),
    },
  };
}

/** `all`: every key with its hits, most first; `hits`: the view's, with or without a key. */
function termCounts(all: readonly { key: string; count: number }[], hits: number): TermCount[] {
  const top = all.slice(0, TOP);
  const withKey = all.reduce((sum, term) => sum + term.count, 0);
  const missing = hits - withKey;
  const counted: { key: string; count: number }[] = [...top];
  // Shown when it would be among the top ten.
  if (missing > 0 && (top.length < TOP || missing >= top[top.length - 1]!.count)) counted.push({ key: MISSING, count: missing });
  const terms: TermCount[] = counted.map((term) => ({ ...term, percent: Math.floor((term.count / hits) * 100 + 0.5) }));
  const other = withKey - top.reduce((sum, term) => sum + term.count, 0);
  if (other > 0) terms.push({ key: OTHER, count: other });
  return terms;
}
