// A chart bucket's `f` label as API Umbrella writes it (its
// formatted_interval_time.lua, ICU patterns, on the clock and calendar of
// analytics.timezone): "Tue, Jan 13, 2015" for a day, "Tue, Jan 13, 2015
// 1:00PM MST" for an hour or a minute (the zone's short name at that time,
// so the hour the clock repeats reads MDT, then MST), "Jan 12, 2015 - Jan
// 19, 2015" for a week (from Monday) and "Jan 1, 2015 - Feb 1, 2015" for a
// month. English names from fixed tables, so the label does not follow the
// host's ICU data.
import { shortName, UTC, wallClock, type TimeZoneName } from '../lib/time-zone.js';
import type { Interval } from './query/intervals.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEK_MS = 7 * 86_400_000;

export function intervalLabel(interval: Interval, ms: number, zone: TimeZoneName = UTC): string {
  // The zone's reading, read with the UTC getters.
  const wall = wallClock(zone, ms);
  const date = new Date(wall);
  switch (interval) {
    case 'minute':
    case 'hour':
      return `${weekday(date)}, ${monthDay(date)} ${clock(date)} ${shortName(zone, ms)}`;
    case 'day':
      return `${weekday(date)}, ${monthDay(date)}`;
    case 'week':
      return `${monthDay(date)} - ${monthDay(new Date(wall + WEEK_MS))}`;
    case 'month':
      return `${monthDay(date)} - ${monthDay(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate())))}`;
  }
}

/** A count with thousands separators, as API Umbrella's number_with_delimiter: "1,234". */
export function hitsLabel(hits: number): string {
  return hits.toLocaleString('en-US');
}

function weekday(date: Date): string {
  return WEEKDAYS[date.getUTCDay()]!;
}

/** ICU's "MMM d, yyyy". */
function monthDay(date: Date): string {
  return `${MONTHS[date.getUTCMonth()]!} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}

/** ICU's "h:mma": 12-hour, minutes, AM or PM. */
function clock(date: Date): string {
  const hours = date.getUTCHours();
  return `${hours % 12 === 0 ? 12 : hours % 12}:${String(date.getUTCMinutes()).padStart(2, '0')}${hours < 12 ? 'AM' : 'PM'}`;
}
