// The main thread's handle on the analytics writer thread: posts batches
// (two moved typed arrays and a few strings, instead of several µs of SQLite
// work an entry), knows how many are still in flight, and can wait for them.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../lib/worker-script.js';
import { transferablesOf, type EntryBatch } from './entry-batch.js';
import { SETTLED, STOPPED, type FromWriter, type ToWriter, type WriterData } from './writer-protocol.js';

/**
 * The writer only turns batches into INSERTs: a small young generation is
 * plenty, and V8's default would hold tens of MB of RSS for a thread that
 * keeps almost nothing alive.
 */
const WRITER_HEAP_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 32 };

export interface WriterThreadEvents {
  /** The thread has opened its store and takes batches. */
  onReady(): void;
  /** A stored batch, handed back: its typed arrays may be reused. */
  onWritten(batch: EntryBatch): void;
  /** A batch the writer could not store, handed back for another try. */
  onFailed(batch: EntryBatch, error: string): void;
  onPruned(deleted: number): void;
  /** The thread could not run (or died); entries in flight are lost, later ones are written on the main thread. */
  onBroken(error: unknown, lost: number): void;
  onPruneFailed(error: string): void;
  /** The GeoIP database could not be read; the one read before, if any, stays in use. */
  onGeoIpUnreadable(problem: string): void;
}

const WORKER_URL = new URL('./writer-worker.js', import.meta.url);

export class WriterThread {
  private readonly progress = new Int32Array(new SharedArrayBuffer(8));
  private worker: Worker | null = null;
  private ready = false;
  private posted = 0;
  /** Batches posted and not yet handed back. */
  private batchesPosted = 0;
  private broken = false;

  constructor(
    private readonly dataDir: string,
    private readonly geoipFile: string | null,
    private readonly events: WriterThreadEvents,
  ) {}

  /** False once the thread failed; the caller then writes on its own. */
  get usable(): boolean {
    return !this.broken;
  }

  /**
   * True once the thread has opened its store. Until then it is being
   * started, and entries should stay in the caller's buffer, so a thread
   * that cannot start loses none.
   */
  readyToWrite(): boolean {
    if (this.worker === null && !this.broken) this.start();
    return this.isReady;
  }

  /** The thread has opened its store and not failed (without starting it). */
  get isReady(): boolean {
    return this.ready && !this.broken;
  }

  /** Entries posted and not yet stored (or handed back). */
  get inFlight(): number {
    return this.posted - Atomics.load(this.progress, SETTLED);
  }

  /** Batches posted and not yet handed back (stored or failed). */
  get batchesInFlight(): number {
    return this.batchesPosted;
  }

  /** The batch's typed arrays move to the thread: the caller must not touch the batch again. */
  write(batch: EntryBatch): void {
    this.posted += batch.count;
    this.batchesPosted++;
    this.send({ type: 'write', batch }, transferablesOf(batch));
  }

  prune(cutoff: number): void {
    this.send({ type: 'prune', cutoff });
  }

  /** Blocks until every posted batch is settled, at most timeoutMs; answers whether they all were. */
  waitIdle(timeoutMs: number): boolean {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const settled = Atomics.load(this.progress, SETTLED);
      const remaining = deadline - Date.now();
      if (settled >= this.posted || this.broken) return settled >= this.posted;
      if (remaining <= 0) return false;
      Atomics.wait(this.progress, SETTLED, settled, remaining);
    }
  }

  /** Lets the thread finish what it was given, close its store and exit; blocks at most timeoutMs. */
  stop(timeoutMs: number): boolean {
    const worker = this.worker;
    if (worker === null || this.broken) return true;
    const idle = this.waitIdle(timeoutMs);
    worker.postMessage({ type: 'stop' } satisfies ToWriter);
    const stopped = Atomics.wait(this.progress, STOPPED, 0, timeoutMs) !== 'timed-out';
    this.broken = true;
    void worker.terminate();
    return idle && stopped;
  }

  private send(message: ToWriter, transfer: ArrayBuffer[] = []): void {
    (this.worker ?? this.start()).postMessage(message, transfer);
  }

  /** Started on first use, so commands that never log spawn no thread. */
  private start(): Worker {
    const workerData: WriterData = { dataDir: this.dataDir, progress: this.progress.buffer as SharedArrayBuffer, geoipFile: this.geoipFile };
    const options = { workerData, resourceLimits: WRITER_HEAP_LIMITS };
    const worker = startWorker(WORKER_URL, options);
    // Never keeps a stopping process alive: stop() drains it explicitly.
    worker.unref();
    worker.on('message', (message: FromWriter) => this.receive(message));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (!this.broken) this.fail(new Error(`analytics writer thread exited with code ${code}`));
    });
    this.worker = worker;
    return worker;
  }

  private receive(message: FromWriter): void {
    if (message.type === 'ready') {
      this.ready = true;
      this.events.onReady();
    }
    else if (message.type === 'written') {
      this.batchesPosted--;
      this.events.onWritten(message.batch);
    } else if (message.type === 'failed') {
      this.batchesPosted--;
      this.events.onFailed(message.batch, message.error);
    }
    else if (message.type === 'pruned') this.events.onPruned(message.deleted);
    else if (message.type === 'geoip-unreadable') this.events.onGeoIpUnreadable(message.problem);
    else this.events.onPruneFailed(message.error);
  }

  private fail(error: unknown): void {
    if (this.broken) return;
    this.broken = true;
    const lost = this.inFlight;
    this.posted -= lost;
    this.batchesPosted = 0;
    this.events.onBroken(error, lost);
  }
}
