// Messages between the main thread and the analytics reader thread. Every
// request with an id is answered once, with the same id.
import type { AnalyticsQueries } from './log-queries.js';
import type { DrilldownQuery } from './query/drilldown-prefix.js';
import type { LogQuery } from './query/log-query.js';
import type { MapQuery } from './query/map-region.js';
import type { UsersQuery } from './query/users-query.js';

export interface ReaderData {
  readonly dataDir: string;
}

/** The AnalyticsQueries methods that answer in one go. */
export type QueryName = 'count' | 'entries' | 'summary' | 'search' | 'users' | 'usersPage' | 'drilldown' | 'locations';
export type Answer<N extends QueryName> = ReturnType<AnalyticsQueries[N]>;

/** Rows per CSV message: one keyset page of AnalyticsQueries.csvRows, formatted in the reader thread. */
export const CSV_BATCH_ROWS = 1_000;

export interface CsvBatch {
  /** Up to CSV_BATCH_ROWS lines of CSV, after the header line in the first batch; '' for none. */
  readonly text: string;
  /** No rows after these; the reader has already forgotten the cursor. */
  readonly done: boolean;
}

export type ToReader =
  | { type: 'query'; id: number; name: QueryName; query: LogQuery | DrilldownQuery | MapQuery }
  | { type: 'location-page'; id: number; query: MapQuery }
  // A download of the entries (AnalyticsQueries.csvRows) or of By Users (userCsvRows).
  | { type: 'csv-open'; cursor: number; rows: 'entries'; query: LogQuery }
  | { type: 'csv-open'; cursor: number; rows: 'users'; query: UsersQuery }
  | { type: 'csv-next'; id: number; cursor: number }
  | { type: 'csv-close'; cursor: number }
  | { type: 'open-cursors'; id: number };

export type FromReader = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
