// Clock readings, days, weeks and months in an IANA time zone
// (analytics.timezone), from Intl.DateTimeFormat alone: Node's ICU data
// knows each zone's rules, DST and all. A zone's day lasts 23 or 25 hours
// when its clock changes, and starts after midnight when the clock skips
// midnight (America/Santiago, America/Havana); its hours start where its
// clock reads a whole hour, :30 past a UTC hour in Asia/Kolkata, :15 in
// Asia/Kathmandu. In UTC, the default, every answer is plain arithmetic,
// without Intl.
import { DAY_MS } from './iso-instant.js';

declare const zoneName: unique symbol;
/** A zone Intl knows, named as Intl spells it ("America/Denver"): made by parseTimeZone. A string, so it crosses to worker threads. */
export type TimeZoneName = string & { readonly [zoneName]: true };

export const UTC = 'UTC' as TimeZoneName;

/**
 * What a zone's clock and calendar read, written as the epoch ms at which
 * UTC reads the same: its fields are read with getUTC*(), and a day of
 * readings is always DAY_MS long, whatever the clock did that day.
 */
export type WallClock = number;

/** The zone's minutes, hours, days, weeks (from Monday) and calendar months. */
export type Period = 'minute' | 'hour' | 'day' | 'week' | 'month';
type ClockPeriod = Extract<Period, 'minute' | 'hour'>;
export type CalendarPeriod = Exclude<Period, ClockPeriod>;

const CLOCK_PERIOD_MS: Readonly<Record<ClockPeriod, number>> = { minute: 60_000, hour: 3_600_000 };
/** Day 4 of the epoch (1970-01-05) was its first Monday. */
const FIRST_MONDAY = 4;

/** Formatters take a while to make: one of each kind per zone. */
const readings = new Map<TimeZoneName, Intl.DateTimeFormat>();
const shortNames = new Map<TimeZoneName, Intl.DateTimeFormat>();

/**
 * Zones ICU still calls by the names the IANA database has since changed
 * (CLDR keeps its first ids): an operator who wrote Asia/Kolkata reads
 * Asia/Kolkata, not Asia/Calcutta. Intl takes the current names as well.
 */
const RENAMED: Readonly<Record<string, string>> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

/** The zone Intl knows by `name` (in any case, or an alias such as US/Mountain), by its IANA name; null for no zone. */
export function parseTimeZone(name: string): TimeZoneName | null {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    // A RangeError: Intl knows no such zone.
    return null;
  }
  return (RENAMED[resolved] ?? resolved) as TimeZoneName;
}

/** What the zone's clock reads at `instant`. */
export function wallClock(zone: TimeZoneName, instant: number): WallClock {
  return zone === UTC ? instant : instant + offsetAt(zone, instant);
}

/**
 * The first instant at which the zone's clock reads `wall` or later: the one
 * instant that reads it; the first of two when the clock is turned back
 * over it; the end of the gap when the clock skips it, so a day whose
 * midnight is skipped starts when the clock goes on.
 */
export function instantOf(zone: TimeZoneName, wall: WallClock): number {
  if (zone === UTC) return wall;
  // The offsets a day either side: no zone changes its clock twice within two days.
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  // The offset before a change first: where both read `wall` (the clock turned back), it gives the earlier instant.
  for (const offset of [before, after]) if (offsetAt(zone, wall - offset) === offset) return wall - offset;
  return clockChange(zone, wall - after, wall - before);
}

/** The zone's short name at `instant`, as labels show it: "MST" or "MDT" in America/Denver, "GMT+5:30" in Asia/Kolkata, "UTC". */
export function shortName(zone: TimeZoneName, instant: number): string {
  if (zone === UTC) return 'UTC';
  return cached(shortNames, zone, () => new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }))
    .formatToParts(instant)
    .find((part) => part.type === 'timeZoneName')!.value;
}

/** The first instant of the zone's period that `instant` falls in. */
export function periodStart(zone: TimeZoneName, period: Period, instant: number): number {
  if (isClockPeriod(period)) return instant - modulo(wallClock(zone, instant), CLOCK_PERIOD_MS[period]);
  return calendarStart(zone, period, instant, 0);
}

/** The first instant of the period after the one starting at `start` (a periodStart). */
export function nextPeriodStart(zone: TimeZoneName, period: Period, start: number): number {
  if (!isClockPeriod(period)) return calendarStart(zone, period, start, 1);
  const width = CLOCK_PERIOD_MS[period];
  const next = start + width;
  // A clock moved by a part of the period (Lord Howe's half-hour DST) reads the next whole one later.
  const past = modulo(wallClock(zone, next), width);
  return past === 0 ? next : next + width - past;
}

/**
 * How many of the zone's periods [from, to) touches, without listing them:
 * exact but for a clock moved by a part of an hour, where the hours are
 * counted as if it had not.
 */
export function periodCount(zone: TimeZoneName, period: Period, from: number, to: number): number {
  if (isClockPeriod(period)) return Math.ceil((to - periodStart(zone, period, from)) / CLOCK_PERIOD_MS[period]);
  return calendarIndex(period, wallClock(zone, to - 1)) - calendarIndex(period, wallClock(zone, from)) + 1;
}

/** The first instant of the zone's day, week or month `count` after (before, when negative) the one `instant` falls in. */
export function calendarStart(zone: TimeZoneName, period: CalendarPeriod, instant: number, count: number): number {
  return instantOf(zone, calendarWallClock(period, calendarIndex(period, wallClock(zone, instant)) + count));
}

/** Whether `instant` is the first of one of the zone's days. */
export function isDayStart(zone: TimeZoneName, instant: number): boolean {
  return calendarStart(zone, 'day', instant, 0) === instant;
}

/** The zone's date at `instant`, YYYY-MM-DD. */
export function isoDate(zone: TimeZoneName, instant: number): string {
  return new Date(wallClock(zone, instant)).toISOString().slice(0, 10);
}

function isClockPeriod(period: Period): period is ClockPeriod {
  return period === 'minute' || period === 'hour';
}

/** Days, weeks and months counted from the epoch's (weeks from its first Monday, months from year 0). */
function calendarIndex(period: CalendarPeriod, wall: WallClock): number {
  const day = Math.floor(wall / DAY_MS);
  if (period === 'day') return day;
  if (period === 'week') return Math.floor((day - FIRST_MONDAY) / 7);
  const date = new Date(wall);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

/** The reading at which a calendarIndex starts: its midnight. */
function calendarWallClock(period: CalendarPeriod, index: number): WallClock {
  if (period === 'day') return index * DAY_MS;
  if (period === 'week') return (index * 7 + FIRST_MONDAY) * DAY_MS;
  return Date.UTC(Math.floor(index / 12), modulo(index, 12), 1);
}

/**
 * How far the zone's clock is ahead of UTC at `instant` (negative: behind),
 * in ms: what it reads at the instant's whole second, less that second.
 */
function offsetAt(zone: TimeZoneName, instant: number): number {
  const whole = Math.floor(instant / 1000) * 1000;
  const read: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
  for (const part of cached(readings, zone, () => readingFormat(zone)).formatToParts(whole)) read[part.type] = Number(part.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = read;
  return Date.UTC(year, month - 1, day, hour, minute, second) - whole;
}

function readingFormat(zone: TimeZoneName): Intl.DateTimeFormat {
  // h23: midnight reads 0, not 24.
  return new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
}

/**
 * The instant in (from, to] at which the zone's clock skips ahead, found by
 * halving to the second (changes fall on whole seconds): `from` reads the
 * offset before, `to` the one after.
 */
function clockChange(zone: TimeZoneName, from: number, to: number): number {
  let before = Math.floor(from / 1000) * 1000;
  let after = Math.floor(to / 1000) * 1000;
  const offset = offsetAt(zone, before);
  while (after - before > 1000) {
    const middle = before + Math.floor((after - before) / 2000) * 1000;
    if (offsetAt(zone, middle) === offset) before = middle;
    else after = middle;
  }
  return after;
}

function cached(formats: Map<TimeZoneName, Intl.DateTimeFormat>, zone: TimeZoneName, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (format === undefined) {
    format = make();
    formats.set(zone, format);
  }
  return format;
}

function modulo(value: number, divisor: number): number {
  return ((value % divisor) + divisor) % divisor;
}
