// Dates and date-times as people and API Umbrella's exports write them
// (2026-01-31, 2026-01-31T08:00, …Z, …+01:00, …+0100, fractions of a second
// to any precision, kept to the millisecond), read strictly: a day that no
// calendar has (2026-02-30) is refused rather than rolled into the next month
// as Date.parse() would.
export const DAY_MS = 86_400_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A date covers its whole UTC day: as a start it is its midnight, as an end the
 * next midnight. A date-time is that instant (UTC unless it names an offset);
 * as an end it is included.
 */
export function parseInstant(value: unknown, role: 'start' | 'end'): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const date = DATE.exec(text);
  if (date !== null) {
    const midnight = utc(Number(date[1]), Number(date[2]), Number(date[3]));
    return midnight === null ? null : midnight + (role === 'end' ? DAY_MS : 0);
  }
  const dateTime = DATE_TIME.exec(text);
  if (dateTime === null) return null;
  const [, y, mo, d, h, mi, s = '0', ms = '0', zone = 'Z'] = dateTime;
  const midnight = utc(Number(y), Number(mo), Number(d));
  if (midnight === null || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  const offsetMinutes = zoneOffsetMinutes(zone);
  if (offsetMinutes === null) return null;
  const instant = midnight + ((Number(h) * 60 + Number(mi) - offsetMinutes) * 60 + Number(s)) * 1000 + Number(ms.slice(0, 3).padEnd(3, '0'));
  return instant + (role === 'end' ? 1 : 0);
}

/**
 * Whether a date-time names its offset (Z, ±hh:mm): it is then an instant
 * anywhere, where a date or a date-time without one is read as UTC above and
 * may be meant on another zone's calendar (see analytics' date ranges).
 */
export function namesOffset(value: string): boolean {
  return DATE_TIME.exec(value.trim())?.[8] !== undefined;
}

/** Minutes east of UTC of "Z", "±hh:mm" or "±hhmm"; null for an offset no clock has (+24:00, -05:60). */
function zoneOffsetMinutes(zone: string): number | null {
  if (zone === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(-2));
  if (hours > 23 || minutes > 59) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

/** Midnight UTC of a calendar date, or null when there is no such date (2026-02-30). */
function utc(year: number, month: number, day: number): number | null {
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  return back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day ? ms : null;
}
