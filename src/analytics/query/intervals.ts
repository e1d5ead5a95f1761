// The chart's buckets: consecutive minutes, hours, days, weeks (from Monday)
// or calendar months of analytics.timezone covering a date range. A day
// across a DST change has 23 or 25 hours; an hour is always one, the clock
// turned back making two that read alike (lib/time-zone.ts).
import { nextPeriodStart, periodCount, periodStart, type TimeZoneName } from '../../lib/time-zone.js';
import type { DateRange } from './date-range.js';

export const INTERVALS = ['minute', 'hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];
export const DEFAULT_INTERVAL: Interval = 'day';
/**
 * More points than this make an unreadable chart and a slow query: pick a
 * longer interval. A week of minutes (API Umbrella's admin charts two days of
 * minutes; its OpenSearch answers at most 10,000 buckets).
 */
export const MAX_BUCKETS = 7 * 24 * 60;

export interface Bucket {
  /** The bucket's nominal start (for labels), which may lie before the range. */
  readonly start: number;
  /** The part of the range the bucket counts: [from, to). */
  readonly from: number;
  readonly to: number;
}

export function isInterval(value: unknown): value is Interval {
  return typeof value === 'string' && (INTERVALS as readonly string[]).includes(value);
}

/** How many buckets the range has at this interval, without building them. */
export function bucketCount(range: DateRange, interval: Interval, zone: TimeZoneName): number {
  return periodCount(zone, interval, range.startAt, range.endAt);
}

/** Whether the interval makes more points over the range than a chart takes (MAX_BUCKETS). */
export function tooFine(range: DateRange, interval: Interval, zone: TimeZoneName): boolean {
  return bucketCount(range, interval, zone) > MAX_BUCKETS;
}

/** The intervals too fine for the range: refused by the query, offered disabled by the form. */
export function refusedIntervals(range: DateRange, zone: TimeZoneName): Interval[] {
  return INTERVALS.filter((interval) => tooFine(range, interval, zone));
}

export function buckets(range: DateRange, interval: Interval, zone: TimeZoneName): Bucket[] {
  const starts: number[] = [];
  for (let start = periodStart(zone, interval, range.startAt); start < range.endAt; start = nextPeriodStart(zone, interval, start)) starts.push(start);
  return starts.map((start, index) => ({
    start,
    from: Math.max(start, range.startAt),
    to: Math.min(starts[index + 1] ?? range.endAt, range.endAt),
  }));
}
