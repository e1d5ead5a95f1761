// The views' days, buckets and labels in analytics.timezone (America/Denver,
// as API Umbrella's own tests run), computed without a server.
import { describe, expect, it } from 'vitest';
import { intervalLabel } from '../../src/analytics/interval-labels.js';
import { formatRangeEnd, formatRangeStart, type DateRange } from '../../src/analytics/query/date-range.js';
import { buckets } from '../../src/analytics/query/intervals.js';
import { parseLogQuery, type LogQuery } from '../../src/analytics/query/log-query.js';
import { viewParams } from '../../src/analytics/routes/view-model.js';
import { parseTimeZone, UTC, type TimeZoneName } from '../../src/lib/time-zone.js';

const DENVER = parseTimeZone('America/Denver')!;
const HOUR = 3_600_000;
/** Friday 2026-11-27, 20:00 MST: already Saturday in UTC. */
const NOW = Date.UTC(2026, 10, 28, 3);

function queryOf(params: Record<string, unknown>, zone: TimeZoneName = DENVER, now = NOW): LogQuery {
  const parsed = parseLogQuery(params, now, {}, zone);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.query;
}

function errorOf(params: Record<string, unknown>, zone: TimeZoneName = DENVER): string {
  const parsed = parseLogQuery(params, NOW, {}, zone);
  if (parsed.ok) throw new Error('expected an error');
  return parsed.error;
}

function rangeOf(params: Record<string, unknown>, zone: TimeZoneName = DENVER): DateRange {
  return queryOf(params, zone).range;
}

describe('date range presets in America/Denver', () => {
  it('counts today, yesterday and the last days from local midnight', () => {
    expect(rangeOf({ range: 'today' })).toEqual({ startAt: Date.UTC(2026, 10, 27, 7), endAt: Date.UTC(2026, 10, 28, 7), preset: 'today' });
    expect(rangeOf({ range: 'today' }, UTC)).toMatchObject({ startAt: Date.UTC(2026, 10, 28), endAt: Date.UTC(2026, 10, 29) });
    expect(rangeOf({ range: 'yesterday' })).toMatchObject({ startAt: Date.UTC(2026, 10, 26, 7), endAt: Date.UTC(2026, 10, 27, 7) });
    expect(rangeOf({ range: 'last_7_days' })).toMatchObject({ startAt: Date.UTC(2026, 10, 21, 7), endAt: Date.UTC(2026, 10, 28, 7) });
  });

  it('gives a range across the change back to MST its 25th hour', () => {
    const range = rangeOf({ range: 'last_30_days' });
    expect(range).toMatchObject({ startAt: Date.UTC(2026, 9, 29, 6), endAt: Date.UTC(2026, 10, 28, 7) });
    expect(range.endAt - range.startAt).toBe(30 * 24 * HOUR + HOUR);
  });

  it('starts this month and last month at their local midnights, in MDT', () => {
    expect(rangeOf({ range: 'this_month' })).toEqual({ startAt: Date.UTC(2026, 10, 1, 6), endAt: Date.UTC(2026, 10, 28, 7), preset: 'this_month' });
    expect(rangeOf({ range: 'last_month' })).toMatchObject({ startAt: Date.UTC(2026, 9, 1, 6), endAt: Date.UTC(2026, 10, 1, 6) });
  });
});

describe('start_at and end_at in America/Denver', () => {
  it('reads dates as whole local days, end inclusive, 25 hours on the day the clock goes back', () => {
    expect(rangeOf({ start_at: '2026-11-01', end_at: '2026-11-01' })).toEqual({ startAt: Date.UTC(2026, 10, 1, 6), endAt: Date.UTC(2026, 10, 2, 7), preset: null });
    expect(rangeOf({ start_at: '2026-03-08', end_at: '2026-03-08' })).toMatchObject({ startAt: Date.UTC(2026, 2, 8, 7), endAt: Date.UTC(2026, 2, 9, 6) });
  });

  it('reads a date-time without an offset on the local clock, and keeps the instant of one with Z or an offset', () => {
    expect(rangeOf({ start_at: '2026-11-27T00:30', end_at: '2026-11-27T09:00:00Z' })).toEqual({
      startAt: Date.UTC(2026, 10, 27, 7, 30),
      endAt: Date.UTC(2026, 10, 27, 9) + 1,
      preset: null,
    });
    expect(rangeOf({ start_at: '2026-11-26T10:00:00+02:00', end_at: '2026-11-27' }).startAt).toBe(Date.UTC(2026, 10, 26, 8));
  });

  it('takes a year of whole local days that DST made an hour longer, and refuses a longer one', () => {
    // 2027-11-07 to 2028-11-06: 366 days (2028 is a leap year), with two changes back and one forward.
    const year = rangeOf({ start_at: '2027-11-07', end_at: '2028-11-06' });
    expect(year.endAt - year.startAt).toBe(366 * 24 * HOUR + HOUR);
    expect(errorOf({ start_at: '2027-11-07', end_at: '2028-11-07' })).toBe('The date range may span at most one year');
  });

  it('writes whole local days back as dates, anything else as the ISO instant', () => {
    const days = rangeOf({ start_at: '2026-11-01', end_at: '2026-11-27' });
    expect([formatRangeStart(days, DENVER), formatRangeEnd(days, DENVER)]).toEqual(['2026-11-01', '2026-11-27']);
    const times = rangeOf({ start_at: '2026-11-27T00:30', end_at: '2026-11-27T02:00' });
    expect([formatRangeStart(times, DENVER), formatRangeEnd(times, DENVER)]).toEqual(['2026-11-27T07:30:00.000Z', '2026-11-27T09:00:00.000Z']);
    const link = viewParams(queryOf({ start_at: '2026-11-01', end_at: '2026-11-27' }));
    expect([link.get('start_at'), link.get('end_at')]).toEqual(['2026-11-01', '2026-11-27']);
  });

  it('keeps the zone with the view, and leaves a view in UTC as it was', () => {
    expect(queryOf({}).timeZone).toBe('America/Denver');
    expect(queryOf({}, UTC)).not.toHaveProperty('timeZone');
  });
});

describe('chart buckets and their labels in America/Denver', () => {
  it('has 25 hour buckets on 2026-11-01, the repeated hour labelled MDT, then MST', () => {
    const day = rangeOf({ start_at: '2026-11-01', end_at: '2026-11-01', interval: 'hour' });
    const hours = buckets(day, 'hour', DENVER);
    expect(hours).toHaveLength(25);
    expect(hours.every((bucket) => bucket.to - bucket.from === HOUR)).toBe(true);
    expect(hours.slice(0, 4).map((bucket) => intervalLabel('hour', bucket.start, DENVER))).toEqual([
      'Sun, Nov 1, 2026 12:00AM MDT',
      'Sun, Nov 1, 2026 1:00AM MDT',
      'Sun, Nov 1, 2026 1:00AM MST',
      'Sun, Nov 1, 2026 2:00AM MST',
    ]);
  });

  it('has 23 hour buckets on 2026-03-08, going from 1:00AM MST to 3:00AM MDT', () => {
    const hours = buckets(rangeOf({ start_at: '2026-03-08', end_at: '2026-03-08' }), 'hour', DENVER);
    expect(hours).toHaveLength(23);
    expect(hours.slice(1, 3).map((bucket) => intervalLabel('minute', bucket.start, DENVER))).toEqual(['Sun, Mar 8, 2026 1:00AM MST', 'Sun, Mar 8, 2026 3:00AM MDT']);
  });

  it('cuts days, Monday weeks and months at local midnight and labels them with local dates', () => {
    const range = rangeOf({ start_at: '2026-10-31', end_at: '2026-11-02' });
    const days = buckets(range, 'day', DENVER);
    expect(days.map((bucket) => bucket.to - bucket.from)).toEqual([24 * HOUR, 25 * HOUR, 24 * HOUR]);
    expect(days.map((bucket) => intervalLabel('day', bucket.start, DENVER))).toEqual(['Sat, Oct 31, 2026', 'Sun, Nov 1, 2026', 'Mon, Nov 2, 2026']);
    const [week] = buckets(rangeOf({ range: 'today' }), 'week', DENVER);
    expect(week!.start).toBe(Date.UTC(2026, 10, 23, 7));
    expect(intervalLabel('week', week!.start, DENVER)).toBe('Nov 23, 2026 - Nov 30, 2026');
    const months = buckets(range, 'month', DENVER);
    expect(months.map((bucket) => bucket.start)).toEqual([Date.UTC(2026, 9, 1, 6), Date.UTC(2026, 10, 1, 6)]);
    expect(intervalLabel('month', months[1]!.start, DENVER)).toBe('Nov 1, 2026 - Dec 1, 2026');
  });

  it('has 1,500 minute buckets on the 25-hour day, under the limit of a chart', () => {
    const minutes = buckets(rangeOf({ start_at: '2026-11-01', end_at: '2026-11-01', interval: 'minute' }), 'minute', DENVER);
    expect(minutes).toHaveLength(1_500);
    expect(intervalLabel('minute', minutes[1_499]!.start, DENVER)).toBe('Sun, Nov 1, 2026 11:59PM MST');
  });
});
