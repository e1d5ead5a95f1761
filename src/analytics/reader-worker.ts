// The analytics reader thread: runs the admin's queries (AnalyticsQueries) on
// its own connection, so a query over millions of rows never holds up the
// proxy's event loop. Requests queue in the message port and are answered one
// at a time; WAL lets it read while the writer thread writes.
import { parentPort, workerData } from 'node:worker_threads';
import { yieldCpuToMainThread } from '../lib/worker-script.js';
import { openStore } from '../store/db.js';
import { entryCsvLines, userCsvLines } from './csv.js';
import { AnalyticsQueries } from './log-queries.js';
import type { DrilldownQuery } from './query/drilldown-prefix.js';
import type { MapQuery } from './query/map-region.js';
import type { UsersQuery } from './query/users-query.js';
import { locationModel } from './routes/location-view.js';
import { CSV_BATCH_ROWS, type CsvBatch, type FromReader, type ReaderData, type ToReader } from './reader-protocol.js';

const { dataDir } = workerData as ReaderData;
yieldCpuToMainThread('low');
const db = openStore(dataDir);
// The reader never writes, whatever it is asked.
db.pragma('query_only = ON');
const queries = new AnalyticsQueries(db);
/** Open CSV downloads: each a generator of rows (keyset-paged for entries), read one batch per request, and how its lines are written. */
const cursors = new Map<number, { readonly rows: Generator<unknown[]>; readonly lines: (rows: unknown[][], first: boolean) => string; started: boolean }>();
const port = parentPort!;

port.on('message', (message: ToReader) => {
  switch (message.type) {
    case 'query':
      // The main thread pairs each name with its query's type (ReaderThread's methods).
      return answer(message.id, () => queries[message.name](message.query as DrilldownQuery & MapQuery & UsersQuery));
    case 'location-page':
      // The map's outlines are projected here too: the first of each takes tens of milliseconds or more.
      return answer(message.id, () => locationModel(message.query, queries.locationRows(message.query)));
    case 'csv-open':
      return void cursors.set(
        message.cursor,
        message.rows === 'users'
          ? { rows: queries.userCsvRows(message.query, CSV_BATCH_ROWS), lines: userCsvLines, started: false }
          : { rows: queries.csvRows(message.query, CSV_BATCH_ROWS), lines: entryCsvLines, started: false },
      );
    case 'csv-next':
      return answer(message.id, () => nextBatch(message.cursor));
    case 'csv-close':
      cursors.get(message.cursor)?.rows.return(undefined);
      return void cursors.delete(message.cursor);
    case 'open-cursors':
      return answer(message.id, () => cursors.size);
  }
});

/** A failing query is an answer, not a crash: the thread goes on with the next request. */
function answer(id: number, run: () => unknown): void {
  let reply: FromReader;
  try {
    reply = { id, ok: true, value: run() };
  } catch (error) {
    reply = { id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
}

function nextBatch(id: number): CsvBatch {
  const cursor = cursors.get(id);
  if (cursor === undefined) throw new Error(`no open CSV download ${id}`);
  const rows: unknown[][] = [];
  let done = false;
  try {
    while (rows.length < CSV_BATCH_ROWS && !done) {
      const next = cursor.rows.next();
      if (next.done) done = true;
      else rows.push(next.value);
    }
  } catch (error) {
    cursors.delete(id);
    throw error;
  }
  if (done) cursors.delete(id);
  const text = rows.length === 0 && cursor.started ? '' : cursor.lines(rows, !cursor.started);
  cursor.started = true;
  return { text, done };
}
