// Entries wait here between the proxy and the writer. Bounded: once full, new
// entries are dropped and counted, so a slow disk never costs the proxy memory
// or time.
import { FIELD_CAPS } from './fields.js';
import type { AnalyticsEntry } from './log-entry.js';

export class AnalyticsBuffer {
  private pending: AnalyticsEntry[] = [];
  private droppedCount = 0;

  /** `heldElsewhere`: entries taken out but not yet stored, which still count against the bound. */
  constructor(
    private readonly maxEntries: number,
    private readonly heldElsewhere: () => number = () => 0,
  ) {}

  /** Never throws, never blocks: O(1) unless a field is over its cap. */
  push(entry: AnalyticsEntry): void {
    if (this.pending.length + this.heldElsewhere() >= this.maxEntries) {
      this.droppedCount++;
      return;
    }
    this.pending.push(capFields(entry));
  }

  /** Takes up to `limit` of the oldest entries out of the buffer. */
  take(limit: number): AnalyticsEntry[] {
    if (this.pending.length <= limit) {
      const all = this.pending;
      this.pending = [];
      return all;
    }
    return this.pending.splice(0, limit);
  }

  /** Puts back a batch that could not be written, as far as there is room; the rest counts as dropped. */
  putBack(batch: readonly AnalyticsEntry[]): void {
    const room = Math.max(0, this.maxEntries - this.pending.length - this.heldElsewhere());
    const kept = batch.slice(0, room);
    this.droppedCount += batch.length - kept.length;
    this.pending = kept.concat(this.pending);
  }

  countDropped(count: number): void {
    this.droppedCount += count;
  }

  get size(): number {
    return this.pending.length;
  }

  /** Entries dropped since start because the buffer was full (or the log closed). */
  get dropped(): number {
    return this.droppedCount;
  }
}

function capFields(entry: AnalyticsEntry): AnalyticsEntry {
  let capped: Record<string, unknown> | null = null;
  for (const [name, cap] of FIELD_CAPS) {
    const value = entry[name];
    if (typeof value === 'string' && value.length > cap) {
      capped ??= { ...entry };
      capped[name] = value.slice(0, cap);
    }
  }
  return (capped as AnalyticsEntry | null) ?? entry;
}
