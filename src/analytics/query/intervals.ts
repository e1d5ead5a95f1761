// The chart's buckets: consecutive UTC minutes, hours, days, weeks (from
// Monday) or calendar months covering a date range.
import { DAY_MS } from '../../lib/iso-instant.js';
import type { DateRange } from './date-range.js';

export const INTERVALS = ['minute', 'hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];
export const DEFAULT_INTERVAL: Interval = 'day';
/** More points than this make an unreadable chart and a slow query: pick a longer interval. */
export const MAX_BUCKETS = 2_000;

export interface Bucket {
  /** The bucket's nominal start (for labels), which may lie before the range. */
  readonly start: number;
  /** The part of the range the bucket counts: [from, to). */
  readonly from: number;
  readonly to: number;
}

const FIXED_WIDTH: Partial<Record<Interval, number>> = { minute: 60_000, hour: 3_600_000, day: DAY_MS, week: 7 * DAY_MS };
/** 1970-01-01 was a Thursday; weeks start on the Monday after it, minus whole weeks. */
const MONDAY_OFFSET = 4 * DAY_MS;

export function isInterval(value: unknown): value is Interval {
  return typeof value === 'string' && (INTERVALS as readonly string[]).includes(value);
}

/** How many buckets the range has at this interval, without building them. */
export function bucketCount(range: DateRange, interval: Interval): number {
  const width = FIXED_WIDTH[interval];
  if (width === undefined) return monthStarts(range).length;
  const offset = interval === 'week' ? MONDAY_OFFSET : 0;
  return Math.ceil((range.endAt - offset) / width) - Math.floor((range.startAt - offset) / width);
}

export function buckets(range: DateRange, interval: Interval): Bucket[] {
  const width = FIXED_WIDTH[interval];
  const starts = width === undefined ? monthStarts(range) : fixedStarts(range, width, interval === 'week' ? MONDAY_OFFSET : 0);
  return starts.map((start, index) => ({
    start,
    from: Math.max(start, range.startAt),
    to: Math.min(starts[index + 1] ?? range.endAt, range.endAt),
  }));
}

function fixedStarts(range: DateRange, width: number, offset: number): number[] {
  const starts: number[] = [];
  for (let start = Math.floor((range.startAt - offset) / width) * width + offset; start < range.endAt; start += width) starts.push(start);
  return starts;
}

function monthStarts(range: DateRange): number[] {
  const first = new Date(range.startAt);
  const starts: number[] = [];
  for (let month = first.getUTCMonth(), year = first.getUTCFullYear(); ; month++) {
    const start = Date.UTC(year, month, 1);
    if (start >= range.endAt) return starts;
    starts.push(start);
  }
}
