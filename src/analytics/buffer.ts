// Entries wait here between the proxy and the writer, packed into batches as
// they arrive. Bounded: once full, new entries are dropped and counted, so a
// slow disk never costs the proxy memory or time.
import { EntryBatchBuilder, firstEntries, type EntryBatch } from './entry-batch.js';
import type { AnalyticsEntry } from './log-entry.js';

export class AnalyticsBuffer {
  /** Full batches, oldest first; entries after them are in `builder`. */
  private readonly sealed: EntryBatch[] = [];
  private sealedCount = 0;
  private readonly builder = new EntryBatchBuilder();
  private droppedCount = 0;
  /** Entries taken out but not yet stored, which still count against the bound. */
  private heldElsewhere = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly batchSize: number,
  ) {}

  /**
   * How many entries taken out are not yet stored. The owner updates it when
   * it hands a batch on and when one comes back, rather than push() asking
   * on every request; a figure that is late only errs towards the bound.
   */
  holdElsewhere(count: number): void {
    this.heldElsewhere = count;
  }

  /** Never throws, never blocks. */
  push(entry: AnalyticsEntry): void {
    if (this.size + this.heldElsewhere >= this.maxEntries) {
      this.droppedCount++;
      return;
    }
    this.builder.add(entry);
    if (this.builder.size >= this.batchSize) this.seal(this.builder.take());
  }

  /** Takes the oldest batch out of the buffer; null when it is empty. */
  take(): EntryBatch | null {
    const batch = this.sealed.shift();
    if (batch !== undefined) {
      this.sealedCount -= batch.count;
      return batch;
    }
    return this.builder.size === 0 ? null : this.builder.take();
  }

  /** Puts back a batch that could not be written, as far as there is room; the rest counts as dropped. */
  putBack(batch: EntryBatch): void {
    const room = Math.max(0, this.maxEntries - this.size - this.heldElsewhere);
    const kept = firstEntries(batch, room);
    this.droppedCount += batch.count - kept.count;
    if (kept.count === 0) return;
    this.sealed.unshift(kept);
    this.sealedCount += kept.count;
  }

  /** A batch that has been stored: its memory goes to a later batch. */
  reuse(batch: EntryBatch): void {
    this.builder.reuse(batch);
  }

  countDropped(count: number): void {
    this.droppedCount += count;
  }

  get size(): number {
    return this.sealedCount + this.builder.size;
  }

  /** Entries dropped since start because the buffer was full (or the log closed). */
  get dropped(): number {
    return this.droppedCount;
  }

  private seal(batch: EntryBatch): void {
    this.sealed.push(batch);
    this.sealedCount += batch.count;
  }
}
