// User id → slot, so that the key index files a user's every write in the
// same slot: an open-addressing table of slot numbers over the index's own
// id column, at most half full, probed linearly. About 1 MB for 100,000
// users, where a Map<string, number> takes nearly 4 MB. A deleted user keeps
// its (emptied) slot, as ids are never reused, so it only grows.
import { INITIAL_SLOTS } from './key-columns.js';
import { hashUnits, NO_SLOT } from './key-prefix-table.js';

export class SlotsById {
  /** Slot numbers, NO_SLOT where empty; the length is a power of two. */
  private buckets = new Int32Array(INITIAL_SLOTS * 2).fill(NO_SLOT);
  private count = 0;

  constructor(private readonly ids: readonly string[]) {}

  /** The user's slot, or NO_SLOT. */
  get(id: string): number {
    return this.buckets[this.bucketOf(id)]!;
  }

  /** Adds a new user's slot, whose id the id column already holds. */
  add(slot: number): void {
    if ((this.count + 1) * 2 > this.buckets.length) this.rehash(this.buckets.length * 2);
    this.buckets[this.bucketOf(this.ids[slot]!)] = slot;
    this.count++;
  }

  /** The bucket holding the user's slot, or the empty bucket where it would go. */
  private bucketOf(id: string): number {
    const mask = this.buckets.length - 1;
    for (let bucket = hashUnits(id, id.length) & mask; ; bucket = (bucket + 1) & mask) {
      const slot = this.buckets[bucket]!;
      if (slot === NO_SLOT || this.ids[slot] === id) return bucket;
    }
  }

  private rehash(capacity: number): void {
    const old = this.buckets;
    this.buckets = new Int32Array(capacity).fill(NO_SLOT);
    for (const slot of old) if (slot !== NO_SLOT) this.buckets[this.bucketOf(this.ids[slot]!)] = slot;
  }
}
