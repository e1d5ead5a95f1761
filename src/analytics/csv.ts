// CSV downloads, streamed: rows are read a batch at a time, in the reader
// thread, as the client drains the response, so memory stays flat for any
// number of rows and a client that goes away stops the reading.
import { stringify } from 'csv-stringify';
import { pipeline, Readable } from 'node:stream';
import { FIELDS } from './fields.js';
import type { UserHits } from './log-queries.js';
import type { LogQuery } from './query/log-query.js';
import type { CsvCursor, ReaderThread } from './reader-thread.js';

/**
 * Times are ISO 8601 (UTC), which spreadsheets read; null is an empty cell.
 * Resolves once the first batch is read, so a failing query is an error
 * answer (500) rather than a download cut short.
 */
export async function entriesCsv(reader: ReaderThread, query: LogQuery): Promise<Readable> {
  const cursor = reader.openCsv(query);
  const first = await cursor.next();
  return toCsv(cursorStream(cursor, first), FIELDS.map((info) => info.name));
}

export function usersCsv(users: readonly UserHits[]): Readable {
  const rows = users.map((user) => [user.user_id, user.user_email, user.hits, new Date(user.last_request_at).toISOString()]);
  return toCsv(Readable.from(rows), ['user_id', 'user_email', 'hits', 'last_request_at']);
}

/** Pulls a batch whenever the stream wants more; destroying the stream (end, error, client gone) closes the cursor. */
function cursorStream(cursor: CsvCursor, first: unknown[][] | null): Readable {
  let pending = first;
  return new Readable({
    objectMode: true,
    read() {
      const rows = pending === null ? cursor.next() : Promise.resolve(pending);
      pending = null;
      rows.then(
        (batch) => {
          if (batch === null) this.push(null);
          else for (const row of batch) this.push(row);
        },
        (error: unknown) => this.destroy(error as Error),
      );
    },
    destroy(error, done) {
      cursor.close();
      done(error);
    },
  });
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
