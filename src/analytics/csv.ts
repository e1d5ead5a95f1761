// CSV downloads. The entries are formatted in the reader thread a batch at a
// time, as the client drains the response: memory stays flat for any number
// of rows, the main thread only forwards text, and a client that goes away
// stops the reading. Times are ISO 8601 (UTC), which spreadsheets read; null
// is an empty cell. Text a client sent (user agent, path, referer) that a
// spreadsheet would run as a formula (=, +, -, @ first) gets a leading '.
import { stringify } from 'csv-stringify/sync';
import { Readable } from 'node:stream';
import { FIELDS } from './fields.js';
import type { DrilldownResult } from './drilldown-queries.js';
import type { LocationHits } from './location-queries.js';
import type { UserHits } from './log-queries.js';
import type { LogQuery } from './query/log-query.js';
import type { CsvCursor, ReaderThread } from './reader-thread.js';

const ENTRY_COLUMNS = FIELDS.map((info) => info.name);
const USER_COLUMNS = ['user_id', 'user_email', 'hits', 'last_request_at'];
const OPTIONS = { escape_formulas: true } as const;

/** Rows of AnalyticsQueries.csvRows as CSV lines, after the header line for the first batch. */
export function entryCsvLines(rows: unknown[][], first: boolean): string {
  return stringify(rows, first ? { ...OPTIONS, header: true, columns: ENTRY_COLUMNS } : OPTIONS);
}

/** Resolves once the first batch is read, so a failing query is an error answer (500) rather than a download cut short. */
export async function entriesCsv(reader: ReaderThread, query: LogQuery): Promise<Readable> {
  const cursor = reader.openCsv(query);
  return cursorStream(cursor, await cursor.next());
}

/** The users are in memory already (the By Users list). */
export function usersCsv(users: readonly UserHits[]): string {
  const rows = users.map((user) => [user.user_id, user.user_email, user.hits, new Date(user.last_request_at).toISOString()]);
  return stringify(rows, { ...OPTIONS, header: true, columns: USER_COLUMNS });
}

/**
 * Pulls a batch whenever the stream wants more; destroying the stream (end,
 * error, client gone) closes the cursor. The text stays a string down to the
 * socket: as Buffers, the batches would sit in memory outside the heap until
 * a garbage collection that a heap this small hardly ever needs.
 */
function cursorStream(cursor: CsvCursor, first: string | null): Readable {
  let pending = first;
  return new Readable({
    encoding: 'utf8',
    read() {
      const text = pending === null ? cursor.next() : Promise.resolve(pending);
      pending = null;
      text.then(
        (chunk) => this.push(chunk),
        (error: unknown) => this.destroy(error as Error),
      );
    },
    destroy(error, done) {
      cursor.close();
      done(error);
    },
  });
}

/** API Drilldown's list: one path and its hits per line. */
export function drilldownCsv(results: readonly DrilldownResult[]): string {
  return stringify(
    results.map((result) => [result.path, result.hits]),
    // API Umbrella's header line.
    { ...OPTIONS, header: true, columns: ['Path', 'Hits'] },
  );
}

/** By Location's list: each location's id (country code, US-state, city), its name, a city's region, and hits. */
export function locationsCsv(regions: readonly LocationHits[]): string {
  return stringify(
    regions.map((region) => [region.id, region.name, region.region ?? null, region.hits]),
    { ...OPTIONS, header: true, columns: ['Location ID', 'Location', 'Region', 'Hits'] },
  );
}

export function csvFilename(kind: string, query: LogQuery): string {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  // A kind may carry a region named in any script: the name keeps only what every client reads in a header.
  return `${kind.replace(/[^A-Za-z0-9-]/g, '_')}-${day(query.range.startAt)}-to-${day(query.range.endAt - 1)}.csv`;
}
