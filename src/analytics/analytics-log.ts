// The analytics pipeline the proxy hands entries to: a bounded buffer on the
// main thread, drained on a timer into the writer thread (which also prunes
// past retention), and flushed synchronously when the server stops. Only the
// writer thread writes while the proxy serves: while it starts, or after it
// died until it is started again, entries wait in the buffer.
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import type { Db } from '../store/db.js';
import { AnalyticsBuffer } from './buffer.js';
import type { EntryBatch } from './entry-batch.js';
import type { AnalyticsEntry, AnalyticsRecorder } from './log-entry.js';
import type { Pruned } from './retention.js';
import { AnalyticsWriter } from './writer.js';
import { WriterThread, type WriterRestart } from './writer-thread.js';

/**
 * At most this many entries per batch; a bigger backlog goes in several, one
 * per event-loop turn. A power of two: a batch's arrays double as it fills,
 * and stop at exactly this size.
 */
const BATCH_SIZE = 4_096;
/**
 * Batches handed to the writer thread and not yet back. While the thread
 * waits for CPU (it runs at idle priority, and a saturated proxy leaves it
 * none) later entries stay in the buffer, packed into full batches, instead
 * of a batch (and its arrays, sized for the largest batch so far) going out
 * every flush interval to queue at the thread.
 */
const MAX_BATCHES_AT_THREAD = 2;
const PRUNE_EVERY_MS = 10 * 60_000;
const FIRST_PRUNE_AFTER_MS = 5_000;
const DROP_LOG_EVERY_MS = 60_000;
const CLOCK_PAST_ENTRIES =
  "analytics: the clock is further past the newest entry than retention_days: entries are kept, counted back from the newest, until new ones are written (if this gateway has not been idle that long, check the machine's clock)";
/**
 * A failing store (a full disk) fails every flush, several times a second:
 * the first failure is logged at once, the ones after it in one line a
 * minute, and the recovery when a write works again.
 */
const FAILURE_LOG_EVERY_MS = 60_000;
/** How long flush() and close() wait for the writer thread before giving up on it. */
const DRAIN_TIMEOUT_MS = 10_000;

export interface AnalyticsLogOptions {
  readonly db: Db;
  readonly dataDir: string;
  /** The writer's settings: analytics.timezone is the readers' alone, as rows and rollups are stored in UTC. */
  readonly config: Omit<Config['analytics'], 'timezone'>;
  readonly logger: Logger;
  readonly clock: Clock;
  /** How soon a writer thread that died is started again (WRITER_RESTART; tests shorten it). */
  readonly writerRestart?: WriterRestart;
}

export class AnalyticsLog implements AnalyticsRecorder {
  readonly enabled: boolean;
  private readonly buffer: AnalyticsBuffer;
  /**
   * Writes on the main thread, in flush() alone: at close(), when the proxy
   * no longer serves (what is still buffered then, the writer thread up or
   * not), and in tests. Never while the proxy serves: a batch of 4,096 would
   * hold its event loop 50–90 ms, and a store locked by another process up to
   * the connection's busy timeout.
   */
  private readonly writer: AnalyticsWriter;
  private readonly thread: WriterThread;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly retentionDays: number;
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;
  /** A prune came due while the writer thread was starting. */
  private pruneDue = false;
  /** A prune held back by the clock was logged. */
  private heldBackLogged = false;
  private droppedLogged = 0;
  private droppedLoggedAt = -Infinity;
  /** A flush came due while MAX_BATCHES_AT_THREAD were out: it runs when one comes back. */
  private drainDeferred = false;
  /** Writes that failed since the last one that worked, and those of them not yet logged. */
  private failures = 0;
  private failuresUnlogged = 0;
  private failureLoggedAt = -Infinity;

  constructor(options: AnalyticsLogOptions) {
    const { db, config, logger, clock } = options;
    this.enabled = config.enabled;
    this.thread = new WriterThread(options.dataDir, config.geoip_file, {
      // Entries held back while it started go at once, not a flush interval later; so does a prune due meanwhile.
      onReady: (deaths) => {
        if (deaths > 0) logger.info({ deaths, pending: this.buffer.size }, 'analytics: writer thread restarted');
        this.drain();
        if (this.pruneDue) this.prune();
      },
      onWritten: (batch) => {
        this.writeWorked();
        this.buffer.reuse(batch);
        this.countHeldByThread();
        if (this.drainDeferred) this.drain();
      },
      onFailed: (entries, error) => {
        this.countHeldByThread();
        this.retryLater(entries, error);
      },
      onPruned: (pruned) => this.pruned(pruned),
      onPruneFailed: (error) => logger.error({ error }, 'analytics: pruning failed'),
      onGeoIpUnreadable: (problem) => logger.warn({ problem }, 'analytics: GeoIP database unreadable; the one read before, if any, stays in use'),
      onDied: (error, lost, restartInMs) => {
        this.buffer.countDropped(lost);
        this.countHeldByThread();
        logger.error(
          { err: error, lost, restart_in_ms: restartInMs, deaths: this.thread.deaths, pending: this.buffer.size },
          'analytics: writer thread died; entries wait in the buffer until it is started again',
        );
      },
    }, options.writerRestart);
    this.buffer = new AnalyticsBuffer(config.max_buffer, BATCH_SIZE);
    // Without locations: reading a GeoIP database (tens of MB) would hold up the event loop. The
    // IPs of what is written here (at shutdown) are placed when next seen.
    this.writer = new AnalyticsWriter(db);
    this.logger = logger;
    this.clock = clock;
    this.retentionDays = config.retention_days;
    if (!this.enabled) return;
    // unref'd: pending timers never keep a stopping process alive; close() flushes instead.
    this.timers.push(setInterval(() => this.drain(), config.flush_interval_ms).unref());
    this.timers.push(setTimeout(() => this.prune(), FIRST_PRUNE_AFTER_MS).unref());
    this.timers.push(setInterval(() => this.prune(), PRUNE_EVERY_MS).unref());
  }

  /** Starts the writer thread (else the first entry does). */
  start(): void {
    if (this.enabled) this.thread.readyToWrite();
  }

  record(entry: AnalyticsEntry): void {
    if (!this.enabled) return;
    if (this.closed) this.buffer.countDropped(1);
    else this.buffer.push(entry);
  }

  /** The writer thread is up and takes entries. */
  get writerReady(): boolean {
    return this.thread.isReady;
  }

  /** As the admin shows it: whether the writer thread is up, and how many died (or could not start) since the first start, each started again. */
  get writerStatus(): { readonly running: boolean; readonly deaths: number } {
    return { running: this.thread.isReady, deaths: this.thread.deaths };
  }

  /** Entries waiting to be written, in the buffer or in the writer thread. */
  get pending(): number {
    return this.buffer.size + this.thread.inFlight;
  }

  /** Of those, the entries handed to the writer thread. */
  get atWriter(): number {
    return this.thread.inFlight;
  }

  /** Entries dropped because the buffer was full. */
  get dropped(): number {
    return this.buffer.dropped;
  }

  /**
   * Stores everything recorded so far before returning, what is buffered on
   * this thread; returns how many were written here. For close() and tests
   * only: the proxy's event loop would wait for the disk.
   */
  flush(): number {
    if (!this.thread.waitIdle(DRAIN_TIMEOUT_MS)) this.logger.error({ in_flight: this.thread.inFlight }, 'analytics: writer thread did not finish in time');
    let written = 0;
    for (let batch = this.buffer.take(); batch !== null; batch = this.buffer.take()) {
      if (!this.writeHere(batch)) break;
      written += batch.count;
    }
    return written;
  }

  /** Stops the timers, stores what is buffered and stops the writer thread; later entries count as dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.flush();
    if (!this.thread.stop(DRAIN_TIMEOUT_MS)) this.logger.error('analytics: writer thread did not stop in time');
    this.logDrops(true);
    const unwritten = this.buffer.size + this.thread.inFlight;
    if (unwritten > 0) this.logger.error({ entries: unwritten }, 'analytics: entries could not be written before stopping and are lost');
  }

  /**
   * Hands the buffer to the writer thread, a batch per event-loop turn. While
   * the thread starts, or waits to be started again after it died, entries
   * stay in the buffer (max_buffer bounds them): they are never written here.
   */
  private drain(): void {
    if (this.closed) return;
    this.logDrops(false);
    if (this.buffer.size === 0) return;
    if (!this.thread.readyToWrite()) return;
    this.drainDeferred = this.thread.batchesInFlight >= MAX_BATCHES_AT_THREAD;
    if (this.drainDeferred) return;
    this.thread.write(this.buffer.take()!);
    this.countHeldByThread();
    if (this.buffer.size > 0) setImmediate(() => this.drain());
  }

  /** Entries handed to the writer thread still count against max_buffer until stored. */
  private countHeldByThread(): void {
    this.buffer.holdElsewhere(this.thread.inFlight);
  }

  private writeHere(batch: EntryBatch): boolean {
    try {
      this.writer.write(batch);
      this.writeWorked();
      return true;
    } catch (error) {
      this.retryLater(batch, String(error));
      return false;
    }
  }

  private retryLater(batch: EntryBatch, error: string): void {
    this.buffer.putBack(batch);
    this.failures++;
    this.failuresUnlogged++;
    const now = this.clock.now();
    if (this.failures > 1 && now - this.failureLoggedAt < FAILURE_LOG_EVERY_MS) return;
    this.logger.error({ error, entries: batch.count, failures: this.failuresUnlogged, pending: this.buffer.size }, 'analytics: writing entries failed; will retry');
    this.failuresUnlogged = 0;
    this.failureLoggedAt = now;
  }

  private writeWorked(): void {
    if (this.failures === 0) return;
    this.logger.info({ failures: this.failures }, 'analytics: writing entries works again');
    this.failures = 0;
    this.failuresUnlogged = 0;
  }

  private logDrops(force: boolean): void {
    const dropped = this.buffer.dropped;
    const now = this.clock.now();
    if (dropped === this.droppedLogged || (!force && now - this.droppedLoggedAt < DROP_LOG_EVERY_MS)) return;
    this.logger.warn({ dropped_total: dropped, dropped_since_last: dropped - this.droppedLogged }, 'analytics: buffer full, entries dropped');
    this.droppedLogged = dropped;
    this.droppedLoggedAt = now;
  }

  /** In the writer thread, at this clock's time (tests move it). */
  private prune(): void {
    if (this.closed) return;
    this.pruneDue = !this.thread.readyToWrite();
    if (!this.pruneDue) this.thread.prune(this.clock.now(), this.retentionDays);
  }

  private pruned({ deleted, heldBack }: Pruned): void {
    if (deleted > 0) this.logger.info({ deleted }, 'analytics: pruned entries past retention');
    // Once a run: an idle gateway would say it every ten minutes.
    if (heldBack && !this.heldBackLogged) this.logger.warn(CLOCK_PAST_ENTRIES);
    this.heldBackLogged ||= heldBack;
  }
}
