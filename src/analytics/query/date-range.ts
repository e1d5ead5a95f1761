// The date range of a view: a preset relative to now (bookmarks stay
// relative) or explicit start_at/end_at, end inclusive. Days are UTC.
import { DAY_MS, parseInstant } from '../../lib/iso-instant.js';
import { isBlank } from '../../lib/validation-errors.js';
import { dayOf } from '../daily-rollups.js';

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

/** Presets of whole UTC days: the first day and the day after the last, counted from today. */
const DAY_PRESETS = { today: [0, 1], yesterday: [-1, 0], last_7_days: [-6, 1], last_14_days: [-13, 1], last_30_days: [-29, 1] } as const;

export function presetRange(preset: RangePreset, now: number): DateRange {
  if (preset === 'this_month' || preset === 'last_month') return monthRange(preset, now);
  const today = dayOf(now) * DAY_MS;
  const [first, after] = DAY_PRESETS[preset];
  return { startAt: today + first * DAY_MS, endAt: today + after * DAY_MS, preset };
}

/** This month up to the end of today (as AU's "This Month"), or the whole of last month, in UTC. */
function monthRange(preset: 'this_month' | 'last_month', now: number): DateRange {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (preset === 'this_month') return { startAt: Date.UTC(year, month, 1), endAt: (dayOf(now) + 1) * DAY_MS, preset };
  return { startAt: Date.UTC(year, month - 1, 1), endAt: Date.UTC(year, month, 1), preset };
}

/**
 * From `range`: a preset, or "custom" (or nothing) for `start_at` + `end_at`.
 * Neither a preset nor dates means the default preset.
 */
export function parseDateRange(params: { range?: unknown; start_at?: unknown; end_at?: unknown }, now: number): RangeResult {
  const { range, start_at: start, end_at: end } = params;
  if (isRangePreset(range)) return { ok: true, range: presetRange(range, now) };
  if (!isBlank(range) && range !== 'custom') {
    return { ok: false, error: `Unknown date range "${String(range)}"; use one of ${Object.keys(RANGE_PRESETS).join(', ')}, or custom with start_at and end_at` };
  }
  if (isBlank(start) && isBlank(end)) return { ok: true, range: presetRange(DEFAULT_PRESET, now) };
  const startAt = parseInstant(start, 'start');
  const endAt = parseInstant(end, 'end');
  if (startAt === null) return { ok: false, error: `start_at must be a date (YYYY-MM-DD) or an ISO date-time, got "${String(start ?? '')}"` };
  if (endAt === null) return { ok: false, error: `end_at must be a date (YYYY-MM-DD) or an ISO date-time, got "${String(end ?? '')}"` };
  if (endAt <= startAt) return { ok: false, error: 'end_at must not be before start_at' };
  if (endAt - startAt > MAX_RANGE_MS) return { ok: false, error: 'The date range may span at most one year' };
  return { ok: true, range: { startAt, endAt, preset: null } };
}

/** The inclusive end as a date or date-time for forms and links (YYYY-MM-DD when on whole days). */
export function formatRangeEnd(range: DateRange): string {
  return range.endAt % DAY_MS === 0 ? isoDate(range.endAt - DAY_MS) : new Date(range.endAt - 1).toISOString();
}

export function formatRangeStart(range: DateRange): string {
  return range.startAt % DAY_MS === 0 ? isoDate(range.startAt) : new Date(range.startAt).toISOString();
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
