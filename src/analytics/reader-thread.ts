// The main thread's handle on the analytics reader thread: the same queries
// as AnalyticsQueries, answered by promises, so the admin's analytics never
// hold up the proxy on the same event loop. The thread starts on the first
// query, is started again on the next query if it died, and is stopped with
// the server.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../lib/worker-script.js';
import type { DrilldownQuery } from './query/drilldown-prefix.js';
import type { MapQuery } from './query/map-region.js';
import type { LogQuery } from './query/log-query.js';
import type { UsersQuery } from './query/users-query.js';
import type { LocationModel } from './routes/location-view.js';
import type { Answer, CsvBatch, FromReader, QueryName, ReaderData, ToReader } from './reader-protocol.js';

const WORKER_URL = new URL('./reader-worker.js', import.meta.url);
/**
 * CSV rows are garbage as soon as they are formatted: a small young
 * generation is plenty, where V8's defaults let a large download grow the
 * thread's heap by tens of MB. The old generation still holds large answers
 * (By Users over every user).
 */
const READER_HEAP_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 128 };

interface Waiting {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class ReaderThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private lastId = 0;
  private stopped = false;

  constructor(private readonly dataDir: string) {}

  count(query: LogQuery): Promise<Answer<'count'>> {
    return this.query('count', query);
  }

  entries(query: LogQuery): Promise<Answer<'entries'>> {
    return this.query('entries', query);
  }

  summary(query: LogQuery): Promise<Answer<'summary'>> {
    return this.query('summary', query);
  }

  search(query: LogQuery): Promise<Answer<'search'>> {
    return this.query('search', query);
  }

  users(query: UsersQuery): Promise<Answer<'users'>> {
    return this.query('users', query);
  }

  usersPage(query: UsersQuery): Promise<Answer<'usersPage'>> {
    return this.query('usersPage', query);
  }

  drilldown(query: DrilldownQuery): Promise<Answer<'drilldown'>> {
    return this.query('drilldown', query);
  }

  locations(query: MapQuery): Promise<Answer<'locations'>> {
    return this.query('locations', query);
  }

  /** What the By Location page shows (its map drawn in the thread). */
  locationPage(query: MapQuery): Promise<LocationModel> {
    return this.request(this.running(), { type: 'location-page', id: ++this.lastId, query }) as Promise<LocationModel>;
  }

  /** Every matching entry as CSV (see AnalyticsQueries.csvRows), read and formatted by the thread a batch at a time as the cursor is pulled. */
  openCsv(query: LogQuery): CsvCursor {
    return this.openCursor((cursor) => ({ type: 'csv-open', cursor, rows: 'entries', query }));
  }

  /** Every user of By Users with their profile as CSV (AnalyticsQueries.userCsvRows), the same way. */
  openUsersCsv(query: UsersQuery): CsvCursor {
    return this.openCursor((cursor) => ({ type: 'csv-open', cursor, rows: 'users', query }));
  }

  /** How many CSV downloads the thread is holding a cursor for: each closed or finished one is forgotten. */
  openCsvCursors(): Promise<number> {
    return this.request(this.running(), { type: 'open-cursors', id: ++this.lastId }) as Promise<number>;
  }

  /**
   * Ends the thread; queries still waiting are rejected, later ones too.
   * Terminating is a clean stop: its connection is read-only, with nothing to write back.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    if (worker === null) return;
    this.fail(worker, new Error('the analytics reader is stopped'));
    await worker.terminate();
  }

  private query<N extends QueryName>(name: N, query: LogQuery | DrilldownQuery): Promise<Answer<N>> {
    return this.request(this.running(), { type: 'query', id: ++this.lastId, name, query }) as Promise<Answer<N>>;
  }

  private openCursor(open: (cursor: number) => Extract<ToReader, { type: 'csv-open' }>): CsvCursor {
    const worker = this.running();
    const cursor = ++this.lastId;
    worker?.postMessage(open(cursor) satisfies ToReader);
    // A restarted thread does not know the cursor: the download fails rather than starting over.
    const current = () => (worker !== null && this.worker === worker ? worker : null);
    return new CsvCursor(
      () => this.request(current(), { type: 'csv-next', id: ++this.lastId, cursor }) as Promise<CsvBatch>,
      () => current()?.postMessage({ type: 'csv-close', cursor } satisfies ToReader),
    );
  }

  private request(worker: Worker | null, message: ToReader & { id: number }): Promise<unknown> {
    if (worker === null) return Promise.reject(new Error(this.stopped ? 'the analytics reader is stopped' : 'the analytics reader thread restarted; start again'));
    return new Promise((resolve, reject) => {
      // Only while an answer is awaited does the thread keep the process alive.
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(message.id, { resolve, reject });
      worker.postMessage(message);
    });
  }

  private settle(message: FromReader): void {
    const waiting = this.waiting.get(message.id);
    if (waiting === undefined) return;
    this.waiting.delete(message.id);
    if (this.waiting.size === 0) this.worker?.unref();
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(new Error(message.error));
  }

  /** The thread, started if it is not running; null once stopped. */
  private running(): Worker | null {
    if (this.stopped) return null;
    return this.worker ?? this.start();
  }

  private start(): Worker {
    const workerData: ReaderData = { dataDir: this.dataDir };
    const worker = startWorker(WORKER_URL, { workerData, resourceLimits: READER_HEAP_LIMITS });
    worker.unref();
    worker.on('message', (message: FromReader) => this.settle(message));
    worker.on('error', (error: Error) => this.fail(worker, error));
    worker.on('exit', (code) => this.fail(worker, new Error(`the analytics reader thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  /** A dead thread's waiting queries fail; the next query starts a new one. */
  private fail(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const query of waiting) query.reject(error);
  }
}

/**
 * One CSV download, a batch of lines per pull. The next batch is read while
 * the last one is sent, so at most two are in memory at a time.
 */
export class CsvCursor {
  private ahead: Promise<CsvBatch> | null;
  private finished = false;

  constructor(
    private readonly pull: () => Promise<CsvBatch>,
    private readonly closeReader: () => void,
  ) {
    this.ahead = this.readAhead();
  }

  /** The next lines, or null after the last. */
  async next(): Promise<string | null> {
    if (this.ahead === null) return null;
    const batch = await this.ahead;
    if (batch.done) this.finished = true;
    this.ahead = batch.done ? null : this.readAhead();
    // When the rows end on a batch boundary, the last batch is empty.
    return batch.text === '' ? null : batch.text;
  }

  /** Stops the reading (a client that went away); the thread forgets the cursor. */
  close(): void {
    this.ahead = null;
    if (this.finished) return;
    this.finished = true;
    this.closeReader();
  }

  private readAhead(): Promise<CsvBatch> {
    const batch = this.pull();
    // A batch read ahead and never asked for (closed, or the thread died) must not be an unhandled rejection.
    batch.catch(() => undefined);
    return batch;
  }
}
