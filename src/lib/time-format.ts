// How the admin pages and the emails show times: to the minute, with the
// zone's short name. UTC, but on the analytics pages, which follow
// analytics.timezone.
import { shortName, UTC, wallClock, type TimeZoneName } from './time-zone.js';

/**
 * "2026-01-31T12:34:56.789Z" (or its epoch ms) → "2026-01-31 12:34 UTC", or
 * "2026-01-31 05:34 MST" in America/Denver; unparsable values pass through.
 */
export function formatTime(iso: string | number | null | undefined, zone: TimeZoneName = UTC): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return String(iso);
  return `${new Date(wallClock(zone, time)).toISOString().slice(0, 16).replace('T', ' ')} ${shortName(zone, time)}`;
}

/** "in 14 minutes", "in 1 minute": a wait (a lock's, a limit's), rounded up to whole minutes. */
export function inMinutes(waitMs: number): string {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return `in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}
