// The date range of a view: a preset relative to now (bookmarks stay
// relative) or explicit start_at/end_at, end inclusive. Days are those of
// analytics.timezone (UTC unless set): a range of whole days runs from the
// first instant of its first day to that of the day after its last.
import { DAY_MS, namesOffset, parseInstant } from '../../lib/iso-instant.js';
import { calendarStart, instantOf, isDayStart, isoDate, wallClock, type TimeZoneName } from '../../lib/time-zone.js';
import { isBlank } from '../../lib/validation-errors.js';

export const RANGE_PRESETS = {
  today: 'Today',
  yesterday: 'Yesterday',
  last_7_days: 'Last 7 Days',
  last_14_days: 'Last 14 Days',
  last_30_days: 'Last 30 Days',
  this_month: 'This Month',
  last_month: 'Last Month',
} as const;

export type RangePreset = keyof typeof RANGE_PRESETS;
export const DEFAULT_PRESET: RangePreset = 'last_14_days';
export const MAX_RANGE_MS = 366 * DAY_MS;

export function isRangePreset(value: unknown): value is RangePreset {
  return typeof value === 'string' && Object.hasOwn(RANGE_PRESETS, value);
}

export interface DateRange {
  /** Inclusive, epoch ms. */
  readonly startAt: number;
  /** Exclusive, epoch ms. */
  readonly endAt: number;
  /** The preset it came from; null for an explicit range. */
  readonly preset: RangePreset | null;
}

export type RangeResult = { ok: true; range: DateRange } | { ok: false; error: string };

/** Presets of whole days: the first day and the day after the last, counted from today. */
const DAY_PRESETS = { today: [0, 1], yesterday: [-1, 0], last_7_days: [-6, 1], last_14_days: [-13, 1], last_30_days: [-29, 1] } as const;

export function presetRange(preset: RangePreset, now: number, zone: TimeZoneName): DateRange {
  if (preset === 'this_month' || preset === 'last_month') return monthRange(preset, now, zone);
  const [first, after] = DAY_PRESETS[preset];
  return { startAt: calendarStart(zone, 'day', now, first), endAt: calendarStart(zone, 'day', now, after), preset };
}

/** This month up to the end of today (as AU's "This Month"), or the whole of last month. */
function monthRange(preset: 'this_month' | 'last_month', now: number, zone: TimeZoneName): DateRange {
  const thisMonth = calendarStart(zone, 'month', now, 0);
  if (preset === 'this_month') return { startAt: thisMonth, endAt: calendarStart(zone, 'day', now, 1), preset };
  return { startAt: calendarStart(zone, 'month', now, -1), endAt: thisMonth, preset };
}

/**
 * From `range`: a preset, or "custom" (or nothing) for `start_at` + `end_at`.
 * Neither a preset nor dates means the default preset.
 */
export function parseDateRange(params: { range?: unknown; start_at?: unknown; end_at?: unknown }, now: number, zone: TimeZoneName): RangeResult {
  const { range, start_at: start, end_at: end } = params;
  if (isRangePreset(range)) return { ok: true, range: presetRange(range, now, zone) };
  if (!isBlank(range) && range !== 'custom') {
    return { ok: false, error: `Unknown date range "${String(range)}"; use one of ${Object.keys(RANGE_PRESETS).join(', ')}, or custom with start_at and end_at` };
  }
  if (isBlank(start) && isBlank(end)) return { ok: true, range: presetRange(DEFAULT_PRESET, now, zone) };
  const startAt = parseBound(start, 'start', zone);
  const endAt = parseBound(end, 'end', zone);
  if (startAt === null) return { ok: false, error: `start_at must be a date (YYYY-MM-DD) or an ISO date-time, got "${String(start ?? '')}"` };
  if (endAt === null) return { ok: false, error: `end_at must be a date (YYYY-MM-DD) or an ISO date-time, got "${String(end ?? '')}"` };
  if (endAt <= startAt) return { ok: false, error: 'end_at must not be before start_at' };
  // Counted on the zone's clock, so that a year of whole days is one whatever DST added to it.
  if (wallClock(zone, endAt) - wallClock(zone, startAt) > MAX_RANGE_MS) return { ok: false, error: 'The date range may span at most one year' };
  return { ok: true, range: { startAt, endAt, preset: null } };
}

/**
 * A date, or a date-time without an offset, is read on the zone's calendar
 * and clock: parseInstant reads it as UTC, which is its reading as a
 * WallClock. A date-time with an offset (or Z) is the instant it names.
 */
function parseBound(value: unknown, role: 'start' | 'end', zone: TimeZoneName): number | null {
  const utc = parseInstant(value, role);
  return utc === null || namesOffset(String(value)) ? utc : instantOf(zone, utc);
}

/** The inclusive end as a date or date-time for forms and links (the zone's YYYY-MM-DD when on whole days). */
export function formatRangeEnd(range: DateRange, zone: TimeZoneName): string {
  return isDayStart(zone, range.endAt) ? isoDate(zone, range.endAt - 1) : new Date(range.endAt - 1).toISOString();
}

export function formatRangeStart(range: DateRange, zone: TimeZoneName): string {
  return isDayStart(zone, range.startAt) ? isoDate(zone, range.startAt) : new Date(range.startAt).toISOString();
}
