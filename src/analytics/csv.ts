// CSV downloads, streamed: rows are read a batch at a time as the client
// drains the response, so memory stays flat for any number of rows.
import { stringify } from 'csv-stringify';
import { pipeline, Readable } from 'node:stream';
import { FIELDS } from './fields.js';
import type { AnalyticsQueries, UserHits } from './log-queries.js';
import type { LogQuery } from './query/log-query.js';

/** Times as ISO 8601 (UTC), which spreadsheets read; empty cells for null. */
const CSV_OPTIONS = {
  header: true,
  cast: { number: (value: number, context: { column?: string | number }) => (TIME_COLUMNS.has(String(context.column)) ? new Date(value).toISOString() : String(value)) },
};
const TIME_COLUMNS = new Set(['request_at', 'last_request_at']);

export function entriesCsv(queries: AnalyticsQueries, query: LogQuery): Readable {
  const columns = FIELDS.map((info) => info.name);
  return toCsv(Readable.from(flatten(queries.entryBatches(query))), columns);
}

export function usersCsv(users: readonly UserHits[]): Readable {
  const columns = ['user_id', 'user_email', 'hits', 'last_request_at'];
  return toCsv(Readable.from(users), columns);
}

/** A failing source destroys the CSV stream too, which aborts the download instead of leaving it hanging. */
function toCsv(rows: Readable, columns: string[]): Readable {
  const csv = stringify({ ...CSV_OPTIONS, columns });
  pipeline(rows, csv, () => undefined);
  return csv;
}

function* flatten<T>(batches: Iterable<T[]>): Generator<T> {
  for (const batch of batches) yield* batch;
}

export function csvFilename(kind: string, query: LogQuery): string {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return `${kind}-${day(query.range.startAt)}-to-${day(query.range.endAt - 1)}.csv`;
}
