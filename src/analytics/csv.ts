// CSV downloads, streamed: rows are read a batch at a time as the client
// drains the response, so memory stays flat for any number of rows.
import { stringify } from 'csv-stringify';
import { pipeline, Readable } from 'node:stream';
import { FIELDS } from './fields.js';
import type { AnalyticsQueries, UserHits } from './log-queries.js';
import type { LogQuery } from './query/log-query.js';

/** Times are ISO 8601 (UTC), which spreadsheets read; null is an empty cell. */
export function entriesCsv(queries: AnalyticsQueries, query: LogQuery): Readable {
  return toCsv(Readable.from(queries.csvRows(query)), FIELDS.map((info) => info.name));
}

export function usersCsv(users: readonly UserHits[]): Readable {
  const rows = users.map((user) => [user.user_id, user.user_email, user.hits, new Date(user.last_request_at).toISOString()]);
  return toCsv(Readable.from(rows), ['user_id', 'user_email', 'hits', 'last_request_at']);
}

/** A failing source destroys the CSV stream too, which aborts the download instead of leaving it hanging. */
function toCsv(rows: Readable, header: string[]): Readable {
  const csv = stringify({ header: true, columns: header });
  pipeline(rows, csv, () => undefined);
  return csv;
}

export function csvFilename(kind: string, query: LogQuery): string {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return `${kind}-${day(query.range.startAt)}-to-${day(query.range.endAt - 1)}.csv`;
}
