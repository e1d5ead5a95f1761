import { describe, expect, it } from 'vitest';
import {
  calendarStart,
  instantOf,
  isDayStart,
  isoDate,
  nextPeriodStart,
  parseTimeZone,
  periodCount,
  periodStart,
  shortName,
  UTC,
  wallClock,
  type Period,
  type TimeZoneName,
} from '../../src/lib/time-zone.js';

const HOUR = 3_600_000;

function zone(name: string): TimeZoneName {
  const parsed = parseTimeZone(name);
  if (parsed === null) throw new Error(`no zone ${name}`);
  return parsed;
}

const DENVER = zone('America/Denver');
const KOLKATA = zone('Asia/Kolkata');
const KATHMANDU = zone('Asia/Kathmandu');
const SANTIAGO = zone('America/Santiago');
const HAVANA = zone('America/Havana');

/** The periods from the one `from` falls in up to `to`, as ISO instants. */
function starts(tz: TimeZoneName, period: Period, from: number, to: number): string[] {
  const found: string[] = [];
  for (let start = periodStart(tz, period, from); start < to; start = nextPeriodStart(tz, period, start)) found.push(new Date(start).toISOString());
  return found;
}

function dayHours(tz: TimeZoneName, instant: number): number {
  const start = calendarStart(tz, 'day', instant, 0);
  return (calendarStart(tz, 'day', instant, 1) - start) / HOUR;
}

describe('time zones by name', () => {
  it("takes what Intl knows, in any case or by an alias, by its IANA name; refuses the rest", () => {
    expect(parseTimeZone('America/Denver')).toBe('America/Denver');
    expect(parseTimeZone('america/denver')).toBe('America/Denver');
    expect(parseTimeZone('US/Mountain')).toBe('America/Denver');
    expect(parseTimeZone('utc')).toBe(UTC);
    // ICU's old ids for zones IANA has renamed come out by their current names, whichever was written.
    for (const name of ['Asia/Kolkata', 'Asia/Calcutta', 'asia/kolkata']) expect(parseTimeZone(name), name).toBe('Asia/Kolkata');
    expect(parseTimeZone('Europe/Kyiv')).toBe('Europe/Kyiv');
    expect(parseTimeZone('Asia/Kathmandu')).toBe('Asia/Kathmandu');
    expect(wallClock(parseTimeZone('Asia/Calcutta')!, Date.UTC(2026, 0, 1))).toBe(Date.UTC(2026, 0, 1, 5, 30));
    for (const name of ['Mars/Olympus', '', 'America/Denver ', '+01:00']) expect(parseTimeZone(name), name).toBeNull();
  });
});

describe('America/Denver across its DST changes', () => {
  it('has a 23-hour day on 2026-03-08 and a 25-hour day on 2026-11-01, each starting at local midnight', () => {
    expect(dayHours(DENVER, Date.UTC(2026, 2, 7, 18))).toBe(24);
    expect(dayHours(DENVER, Date.UTC(2026, 2, 8, 18))).toBe(23);
    expect(dayHours(DENVER, Date.UTC(2026, 10, 1, 18))).toBe(25);
    expect(dayHours(DENVER, Date.UTC(2026, 10, 2, 18))).toBe(24);
    expect(calendarStart(DENVER, 'day', Date.UTC(2026, 2, 8, 18), 0)).toBe(Date.UTC(2026, 2, 8, 7));
    expect(calendarStart(DENVER, 'day', Date.UTC(2026, 2, 8, 18), 1)).toBe(Date.UTC(2026, 2, 9, 6));
    expect(calendarStart(DENVER, 'day', Date.UTC(2026, 10, 1, 18), 1)).toBe(Date.UTC(2026, 10, 2, 7));
  });

  it('skips the hour the clock skips and keeps both hours the clock repeats, each an hour long and named by its offset', () => {
    const spring = starts(DENVER, 'hour', Date.UTC(2026, 2, 8, 7), Date.UTC(2026, 2, 8, 10));
    expect(spring).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-08T08:00:00.000Z', '2026-03-08T09:00:00.000Z']);
    expect(spring.map((start) => new Date(wallClock(DENVER, Date.parse(start))).toISOString().slice(11, 16))).toEqual(['00:00', '01:00', '03:00']);
    const fall = starts(DENVER, 'hour', Date.UTC(2026, 10, 1, 6), Date.UTC(2026, 10, 1, 10));
    expect(fall).toEqual(['2026-11-01T06:00:00.000Z', '2026-11-01T07:00:00.000Z', '2026-11-01T08:00:00.000Z', '2026-11-01T09:00:00.000Z']);
    expect(fall.map((start) => shortName(DENVER, Date.parse(start)))).toEqual(['MDT', 'MDT', 'MST', 'MST']);
    expect(periodCount(DENVER, 'hour', Date.UTC(2026, 10, 1, 6), Date.UTC(2026, 10, 2, 7))).toBe(25);
    expect(periodCount(DENVER, 'hour', Date.UTC(2026, 2, 8, 7), Date.UTC(2026, 2, 9, 6))).toBe(23);
  });

  it('reads a clock time the clock skips as the end of the gap, and one it repeats as its first instant', () => {
    expect(instantOf(DENVER, Date.UTC(2026, 2, 8, 2, 30))).toBe(Date.UTC(2026, 2, 8, 9));
    expect(instantOf(DENVER, Date.UTC(2026, 10, 1, 1, 30))).toBe(Date.UTC(2026, 10, 1, 7, 30));
    expect(instantOf(DENVER, Date.UTC(2026, 10, 1, 3))).toBe(Date.UTC(2026, 10, 1, 10));
  });
});

describe('zones offset by a part of an hour', () => {
  it('starts Asia/Kolkata hours at :30 past the UTC hour, and Asia/Kathmandu hours at :15', () => {
    expect(starts(KOLKATA, 'hour', Date.UTC(2026, 0, 1, 0, 10), Date.UTC(2026, 0, 1, 2))).toEqual(['2025-12-31T23:30:00.000Z', '2026-01-01T00:30:00.000Z', '2026-01-01T01:30:00.000Z']);
    expect(shortName(KOLKATA, Date.UTC(2026, 0, 1))).toBe('GMT+5:30');
    expect(periodStart(KATHMANDU, 'hour', Date.UTC(2026, 0, 1, 0, 10))).toBe(Date.UTC(2025, 11, 31, 23, 15));
    expect(calendarStart(KATHMANDU, 'day', Date.UTC(2026, 0, 1, 12), 0)).toBe(Date.UTC(2025, 11, 31, 18, 15));
    expect(periodStart(KOLKATA, 'minute', Date.UTC(2026, 0, 1, 0, 10, 42))).toBe(Date.UTC(2026, 0, 1, 0, 10));
  });
});

describe('zones whose clock skips midnight', () => {
  it('start that day at its first instant, 01:00, in America/Santiago (2026-09-06) and America/Havana (2026-03-08)', () => {
    const santiago = calendarStart(SANTIAGO, 'day', Date.UTC(2026, 8, 6, 15), 0);
    expect(santiago).toBe(Date.UTC(2026, 8, 6, 4));
    expect(new Date(wallClock(SANTIAGO, santiago)).toISOString()).toBe('2026-09-06T01:00:00.000Z');
    expect(dayHours(SANTIAGO, Date.UTC(2026, 8, 6, 15))).toBe(23);
    expect(calendarStart(SANTIAGO, 'day', Date.UTC(2026, 8, 5, 15), 1)).toBe(santiago);
    expect(isDayStart(SANTIAGO, santiago)).toBe(true);
    expect(isoDate(SANTIAGO, santiago)).toBe('2026-09-06');
    const havana = calendarStart(HAVANA, 'day', Date.UTC(2026, 2, 8, 15), 0);
    expect(new Date(wallClock(HAVANA, havana)).toISOString()).toBe('2026-03-08T01:00:00.000Z');
    expect(dayHours(HAVANA, Date.UTC(2026, 2, 8, 15))).toBe(23);
  });
});

describe('weeks and months', () => {
  it('start weeks on Monday and months on the 1st at local midnight, counting back across a year end', () => {
    const lateNovember = Date.UTC(2026, 10, 28, 3); // Friday 2026-11-27, 20:00 MST
    expect(calendarStart(DENVER, 'week', lateNovember, 0)).toBe(Date.UTC(2026, 10, 23, 7));
    expect(calendarStart(DENVER, 'month', lateNovember, 0)).toBe(Date.UTC(2026, 10, 1, 6));
    expect(calendarStart(DENVER, 'month', lateNovember, -1)).toBe(Date.UTC(2026, 9, 1, 6));
    expect(calendarStart(DENVER, 'month', Date.UTC(2027, 0, 10), -1)).toBe(Date.UTC(2026, 11, 1, 7));
    expect(starts(DENVER, 'week', Date.UTC(2026, 10, 4), Date.UTC(2026, 10, 17))).toEqual(['2026-11-02T07:00:00.000Z', '2026-11-09T07:00:00.000Z', '2026-11-16T07:00:00.000Z']);
    expect(starts(DENVER, 'month', Date.UTC(2026, 9, 15), Date.UTC(2026, 11, 2))).toEqual(['2026-10-01T06:00:00.000Z', '2026-11-01T06:00:00.000Z', '2026-12-01T07:00:00.000Z']);
    expect(periodCount(DENVER, 'week', Date.UTC(2026, 10, 4), Date.UTC(2026, 10, 17))).toBe(3);
    expect(periodCount(DENVER, 'month', Date.UTC(2026, 9, 15), Date.UTC(2026, 11, 2))).toBe(3);
  });

  it('answers UTC with the arithmetic of whole UTC days', () => {
    const at = Date.UTC(2026, 0, 15, 12, 34);
    expect(wallClock(UTC, at)).toBe(at);
    expect(calendarStart(UTC, 'day', at, -13)).toBe(Date.UTC(2026, 0, 2));
    expect(calendarStart(UTC, 'week', at, 0)).toBe(Date.UTC(2026, 0, 12));
    expect(shortName(UTC, at)).toBe('UTC');
    expect(isDayStart(UTC, Date.UTC(2026, 0, 15))).toBe(true);
  });
});
