// The main thread's handle on the analytics writer thread: posts batches
// (two moved typed arrays and a few strings, instead of several µs of SQLite
// work an entry), knows how many are still in flight, and can wait for them.
// A thread that dies (an out-of-memory kill, a native fault, a store it
// cannot open) is started again after a delay that doubles while it keeps
// dying, so the main thread never has to write in its place.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../lib/worker-script.js';
import { transferablesOf, type EntryBatch } from './entry-batch.js';
import type { Pruned } from './retention.js';
import { SETTLED, STOPPED, type FromWriter, type ToWriter, type WriterData } from './writer-protocol.js';

/**
 * The writer only turns batches into INSERTs: a small young generation is
 * plenty, and V8's default would hold tens of MB of RSS for a thread that
 * keeps almost nothing alive.
 */
const WRITER_HEAP_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 32 };

/** How long a thread that died waits before it is started again. */
export interface WriterRestart {
  /** The first delay, and the one after a thread that has stored a batch. */
  readonly firstMs: number;
  /** The delay doubles with each death in a row, up to this. */
  readonly maxMs: number;
}

const WRITER_RESTART: WriterRestart = { firstMs: 1_000, maxMs: 60_000 };

export interface WriterThreadEvents {
  /** The thread has opened its store and takes batches; `deaths`: how many threads died before it (0 for the first). */
  onReady(deaths: number): void;
  /** A stored batch, handed back: its typed arrays may be reused. */
  onWritten(batch: EntryBatch): void;
  /** A batch the writer could not store, handed back for another try. */
  onFailed(batch: EntryBatch, error: string): void;
  onPruned(pruned: Pruned): void;
  /** The thread died or could not start: the entries it held are lost; another is started in restartInMs. */
  onDied(error: unknown, lost: number, restartInMs: number): void;
  onPruneFailed(error: string): void;
  /** The GeoIP database could not be read; the one read before, if any, stays in use. */
  onGeoIpUnreadable(problem: string): void;
}

const WORKER_URL = new URL('./writer-worker.js', import.meta.url);

export class WriterThread {
  private readonly progress = new Int32Array(new SharedArrayBuffer(8));
  /** The running thread: null before the first start, while a restart is due, and once stopped. */
  private worker: Worker | null = null;
  private ready = false;
  private posted = 0;
  /** Batches posted to the running thread and not yet handed back. */
  private batchesPosted = 0;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private restartDelay: number;
  private deathCount = 0;

  constructor(
    private readonly dataDir: string,
    private readonly geoipFile: string | null,
    private readonly events: WriterThreadEvents,
    private readonly restart: WriterRestart = WRITER_RESTART,
  ) {
    this.restartDelay = restart.firstMs;
  }

  /**
   * True once the thread has opened its store. Until then it is being
   * started (the first time by this call), or waits for its restart, and
   * entries should stay in the caller's buffer, so a thread that cannot
   * start loses none.
   */
  readyToWrite(): boolean {
    if (this.worker === null && this.restartTimer === null && !this.stopped) this.start();
    return this.ready;
  }

  /** The thread has opened its store and not died since (without starting it). */
  get isReady(): boolean {
    return this.ready;
  }

  /** How many threads died (or could not start) since the first start. */
  get deaths(): number {
    return this.deathCount;
  }

  /** Entries posted and not yet stored (or handed back). */
  get inFlight(): number {
    return this.posted - Atomics.load(this.progress, SETTLED);
  }

  /** Batches posted and not yet handed back (stored or failed). */
  get batchesInFlight(): number {
    return this.batchesPosted;
  }

  /** Only once readyToWrite(); the batch's typed arrays move to the thread: the caller must not touch the batch again. */
  write(batch: EntryBatch): void {
    this.posted += batch.count;
    this.batchesPosted++;
    this.send({ type: 'write', batch }, transferablesOf(batch));
  }

  /** Only once readyToWrite(). */
  prune(now: number, retentionDays: number): void {
    this.send({ type: 'prune', now, retentionDays });
  }

  /** Blocks until every posted batch is settled, at most timeoutMs; answers whether they all were. */
  waitIdle(timeoutMs: number): boolean {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const settled = Atomics.load(this.progress, SETTLED);
      const remaining = deadline - Date.now();
      if (settled >= this.posted || this.worker === null) return settled >= this.posted;
      if (remaining <= 0) return false;
      Atomics.wait(this.progress, SETTLED, settled, remaining);
    }
  }

  /** Lets the thread finish what it was given, close its store and exit; blocks at most timeoutMs. No restart after it. */
  stop(timeoutMs: number): boolean {
    this.stopped = true;
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const worker = this.worker;
    if (worker === null) return true;
    const idle = this.waitIdle(timeoutMs);
    worker.postMessage({ type: 'stop' } satisfies ToWriter);
    const stopped = Atomics.wait(this.progress, STOPPED, 0, timeoutMs) !== 'timed-out';
    this.worker = null;
    this.ready = false;
    void worker.terminate();
    return idle && stopped;
  }

  private send(message: ToWriter, transfer: ArrayBuffer[] = []): void {
    if (this.worker === null) throw new Error('the analytics writer thread is not running');
    this.worker.postMessage(message, transfer);
  }

  /** Started on first use, so commands that never log spawn no thread; started again after it died. */
  private start(): void {
    const workerData: WriterData = { dataDir: this.dataDir, progress: this.progress.buffer as SharedArrayBuffer, geoipFile: this.geoipFile };
    const options = { workerData, resourceLimits: WRITER_HEAP_LIMITS };
    const worker = startWorker(WORKER_URL, options);
    // Never keeps a stopping process alive: stop() drains it explicitly.
    worker.unref();
    worker.on('message', (message: FromWriter) => this.receive(worker, message));
    worker.on('error', (error) => this.died(worker, error));
    worker.on('exit', (code) => this.died(worker, new Error(`analytics writer thread exited with code ${code}`)));
    this.worker = worker;
  }

  private receive(worker: Worker, message: FromWriter): void {
    // A thread's messages all come before its 'error' and 'exit'; one of a thread that died since is still handled (its batch kept or put back), outside the count of the running one's.
    const current = worker === this.worker;
    if (message.type === 'ready') {
      if (!current) return;
      this.ready = true;
      this.events.onReady(this.deathCount);
    } else if (message.type === 'written') {
      if (current) this.batchesPosted--;
      // A thread that stores batches is not one that dies at once: the next restart comes soon again.
      this.restartDelay = this.restart.firstMs;
      this.events.onWritten(message.batch);
    } else if (message.type === 'failed') {
      if (current) this.batchesPosted--;
      this.events.onFailed(message.batch, message.error);
    }
    else if (message.type === 'pruned') this.events.onPruned(message);
    else if (message.type === 'geoip-unreadable') this.events.onGeoIpUnreadable(message.problem);
    else this.events.onPruneFailed(message.error);
  }

  /** Once per thread ('error' comes before 'exit'); not for one stop() ended. */
  private died(worker: Worker, error: unknown): void {
    if (worker !== this.worker) return;
    this.worker = null;
    this.ready = false;
    const lost = this.inFlight;
    this.posted -= lost;
    this.batchesPosted = 0;
    this.deathCount++;
    const delay = this.restartDelay;
    this.restartDelay = Math.min(delay * 2, this.restart.maxMs);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.stopped) this.start();
    }, delay);
    // Like the thread itself, a restart due never keeps a stopping process alive.
    this.restartTimer.unref();
    this.events.onDied(error, lost, delay);
  }
}
