// CSV downloads. The entries are formatted in the reader thread a batch at a
// time, as the client drains the response: memory stays flat for any number
// of rows, the main thread only forwards text, and a client that goes away
// stops the reading. Times are ISO 8601 (UTC), which spreadsheets read; null
// is an empty cell. Text a client sent (user agent, path, referer) that a
// spreadsheet would run as a formula (=, +, -, @ first) gets a leading '.
import { stringify } from 'csv-stringify/sync';
import { Readable } from 'node:stream';
import { isoDate, type TimeZoneName } from '../lib/time-zone.js';
import { FIELDS } from './fields.js';
import type { DrilldownResult } from './drilldown-queries.js';
import type { LocationHits } from './location-queries.js';
import { zoneOf, type LogQuery } from './query/log-query.js';
import type { UsersQuery } from './query/users-query.js';
import type { CsvCursor, ReaderThread } from './reader-thread.js';
import { USERS_CSV_COLUMNS } from './user-profiles.js';

const ENTRY_COLUMNS = FIELDS.map((info) => info.name);
const OPTIONS = { escape_formulas: true } as const;

/** Rows of AnalyticsQueries.csvRows as CSV lines, after the header line for the first batch. */
export function entryCsvLines(rows: unknown[][], first: boolean): string {
  return stringify(rows, first ? { ...OPTIONS, header: true, columns: ENTRY_COLUMNS } : OPTIONS);
}

/** Rows of AnalyticsQueries.userCsvRows as CSV lines, after API Umbrella's header line for the first batch. */
export function userCsvLines(rows: unknown[][], first: boolean): string {
  return stringify(rows, first ? { ...OPTIONS, header: true, columns: USERS_CSV_COLUMNS } : OPTIONS);
}

/** Resolves once the first batch is read, so a failing query is an error answer (500) rather than a download cut short. */
export async function entriesCsv(reader: ReaderThread, query: LogQuery): Promise<Readable> {
  return csvDownload(reader.openCsv(query));
}

/** By Users with the users' profiles, as API Umbrella's users.csv; resolves once the first batch is read. */
export async function usersCsv(reader: ReaderThread, query: UsersQuery): Promise<Readable> {
  return csvDownload(reader.openUsersCsv(query));
}

async function csvDownload(cursor: CsvCursor): Promise<Readable> {
  return cursorStream(cursor, await cursor.next());
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

/** API Umbrella's name for a download of `kind` made at `now`: "api_users_2026-11-28.csv", today's date in `zone`. */
export function apiUmbrellaCsvFilename(kind: string, now: number, zone: TimeZoneName): string {
  return `api_${kind}_${isoDate(zone, now)}.csv`;
}

/** "logs-2026-11-01-to-2026-11-28.csv": the range's first and last days in the view's zone. */
export function csvFilename(kind: string, query: LogQuery): string {
  const zone = zoneOf(query);
  // A kind may carry a region named in any script: the name keeps only what every client reads in a header.
  return `${kind.replace(/[^A-Za-z0-9-]/g, '_')}-${isoDate(zone, query.range.startAt)}-to-${isoDate(zone, query.range.endAt - 1)}.csv`;
}
