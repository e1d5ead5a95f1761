// How the admin pages and the emails show times: UTC, to the minute.

/** "2026-01-31T12:34:56.789Z" → "2026-01-31 12:34 UTC"; unparsable values pass through. */
export function formatTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
