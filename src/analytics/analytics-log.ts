// The analytics pipeline the proxy hands entries to: a bounded buffer, a
// writer that flushes it on a timer, and retention pruning in the background.
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import type { Db } from '../store/db.js';
import { AnalyticsBuffer } from './buffer.js';
import type { AnalyticsEntry, AnalyticsRecorder } from './log-entry.js';
import { RetentionPruner } from './retention.js';
import { AnalyticsWriter } from './writer.js';

/** A flush writes at most this many entries per transaction, then yields to the event loop before the next. */
const MAX_BATCH = 5_000;
const PRUNE_EVERY_MS = 10 * 60_000;
const FIRST_PRUNE_AFTER_MS = 5_000;
const DROP_LOG_EVERY_MS = 60_000;

export interface AnalyticsLogOptions {
  readonly db: Db;
  readonly config: Config['analytics'];
  readonly logger: Logger;
  readonly clock: Clock;
}

export class AnalyticsLog implements AnalyticsRecorder {
  readonly enabled: boolean;
  readonly retention: RetentionPruner;
  private readonly buffer: AnalyticsBuffer;
  private readonly writer: AnalyticsWriter;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;
  private droppedLogged = 0;
  private droppedLoggedAt = -Infinity;

  constructor(options: AnalyticsLogOptions) {
    const { db, config, logger, clock } = options;
    this.enabled = config.enabled;
    this.buffer = new AnalyticsBuffer(config.max_buffer);
    this.writer = new AnalyticsWriter(db);
    this.retention = new RetentionPruner(db, clock, config.retention_days);
    this.logger = logger;
    this.clock = clock;
    if (!this.enabled) return;
    // unref'd: pending timers never keep a stopping process alive; close() flushes instead.
    this.timers.push(setInterval(() => this.flushSoon(), config.flush_interval_ms).unref());
    this.timers.push(setTimeout(() => this.pruneInBackground(), FIRST_PRUNE_AFTER_MS).unref());
    this.timers.push(setInterval(() => this.pruneInBackground(), PRUNE_EVERY_MS).unref());
  }

  record(entry: AnalyticsEntry): void {
    if (!this.enabled) return;
    if (this.closed) this.buffer.countDropped(1);
    else this.buffer.push(entry);
  }

  /** Entries waiting to be written. */
  get pending(): number {
    return this.buffer.size;
  }

  /** Entries dropped because the buffer was full. */
  get dropped(): number {
    return this.buffer.dropped;
  }

  /** Writes everything buffered now, in transactions of at most MAX_BATCH; returns how many were written. */
  flush(): number {
    let written = 0;
    while (this.buffer.size > 0) {
      const batch = this.writeOneBatch();
      if (batch === 0) break;
      written += batch;
    }
    return written;
  }

  /** Stops the timers and writes what is buffered; entries recorded afterwards are counted as dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.flush();
    this.logDrops(true);
  }

  /** One batch per event-loop turn, so a large backlog never holds the proxy for long. */
  private flushSoon(): void {
    if (this.closed) return;
    this.logDrops(false);
    if (this.writeOneBatch() > 0 && this.buffer.size > 0) setImmediate(() => this.flushSoon());
  }

  private writeOneBatch(): number {
    const batch = this.buffer.take(MAX_BATCH);
    try {
      this.writer.write(batch);
      return batch.length;
    } catch (error) {
      this.buffer.putBack(batch);
      this.logger.error({ err: error, entries: batch.length }, 'analytics: writing entries failed; will retry');
      return 0;
    }
  }

  private logDrops(force: boolean): void {
    const dropped = this.buffer.dropped;
    const now = this.clock.now();
    if (dropped === this.droppedLogged || (!force && now - this.droppedLoggedAt < DROP_LOG_EVERY_MS)) return;
    this.logger.warn({ dropped_total: dropped, dropped_since_last: dropped - this.droppedLogged }, 'analytics: buffer full, entries dropped');
    this.droppedLogged = dropped;
    this.droppedLoggedAt = now;
  }

  private pruneInBackground(): void {
    this.retention.prune().then(
      (deleted) => {
        if (deleted > 0) this.logger.info({ deleted }, 'analytics: pruned entries past retention');
      },
      (error: unknown) => this.logger.error({ err: error }, 'analytics: pruning failed'),
    );
  }
}
