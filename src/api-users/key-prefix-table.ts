// Lookup prefix → slot, for the key index, in typed arrays instead of a Map
// of strings: each slot's prefix as UTF-16 code units (with its length and
// hash), and an open-addressing table of slot numbers, at most half full,
// probed linearly. Deletion shifts the following entries back instead of
// leaving tombstones, so a table whose keys are regenerated often never
// fills with dead buckets.
import { LOOKUP_PREFIX_LENGTH } from '../lib/secret-token.js';
import { INITIAL_SLOTS, withRoom } from './key-columns.js';

export const NO_SLOT = -1;

export class PrefixTable {
  /** LOOKUP_PREFIX_LENGTH code units per slot. */
  private units = new Uint16Array(INITIAL_SLOTS * LOOKUP_PREFIX_LENGTH);
  /** The prefix's length in units; 0 for a slot never filed. Imported keys may be shorter than the lookup prefix. */
  private lengths = new Uint8Array(INITIAL_SLOTS);
  private hashes = new Uint32Array(INITIAL_SLOTS);
  /** Slot numbers, NO_SLOT where empty; the length is a power of two. */
  private buckets = new Int32Array(INITIAL_SLOTS * 2).fill(NO_SLOT);
  private count = 0;

  /** Prefixes filed. */
  get size(): number {
    return this.count;
  }

  /** The slot filed under the key's lookup prefix (its first LOOKUP_PREFIX_LENGTH characters), or NO_SLOT. */
  slotOf(key: string): number {
    return this.buckets[this.bucketOf(key, Math.min(key.length, LOOKUP_PREFIX_LENGTH))]!;
  }

  /**
   * Files the slot under this prefix instead of its previous one, which stops
   * finding it at once. Another slot filed under the same prefix gives it up:
   * across processes, changes arrive in commit order, so the newer holder wins.
   */
  file(slot: number, prefix: string): void {
    this.unfile(slot);
    this.keep(slot, prefix);
    if ((this.count + 1) * 2 > this.buckets.length) this.rehash(this.buckets.length * 2);
    const bucket = this.bucketOf(prefix, this.lengths[slot]!);
    if (this.buckets[bucket] === NO_SLOT) this.count++;
    this.buckets[bucket] = slot;
  }

  /** The slot stops being found under any prefix (its user was deleted). */
  remove(slot: number): void {
    this.unfile(slot);
    if (slot < this.lengths.length) this.lengths[slot] = 0;
  }

  private keep(slot: number, prefix: string): void {
    const length = Math.min(prefix.length, LOOKUP_PREFIX_LENGTH);
    this.units = withRoom(this.units, (slot + 1) * LOOKUP_PREFIX_LENGTH);
    this.lengths = withRoom(this.lengths, slot + 1);
    this.hashes = withRoom(this.hashes, slot + 1);
    const start = slot * LOOKUP_PREFIX_LENGTH;
    for (let index = 0; index < length; index++) this.units[start + index] = prefix.charCodeAt(index);
    this.lengths[slot] = length;
    this.hashes[slot] = hashUnits(prefix, length);
  }

  /** The bucket holding the slot filed under key's first `length` units, or the empty bucket where it would go. */
  private bucketOf(key: string, length: number): number {
    const hash = hashUnits(key, length);
    const mask = this.buckets.length - 1;
    for (let bucket = hash & mask; ; bucket = (bucket + 1) & mask) {
      const slot = this.buckets[bucket]!;
      if (slot === NO_SLOT || (this.hashes[slot] === hash && this.holds(slot, key, length))) return bucket;
    }
  }

  private holds(slot: number, key: string, length: number): boolean {
    if (this.lengths[slot] !== length) return false;
    const start = slot * LOOKUP_PREFIX_LENGTH;
    for (let index = 0; index < length; index++) {
      if (this.units[start + index] !== key.charCodeAt(index)) return false;
    }
    return true;
  }

  /** Takes the slot's current prefix out of the table, unless another slot has taken that prefix over since. */
  private unfile(slot: number): void {
    if (slot >= this.lengths.length || this.lengths[slot] === 0) return;
    const mask = this.buckets.length - 1;
    for (let bucket = this.hashes[slot]! & mask; this.buckets[bucket] !== NO_SLOT; bucket = (bucket + 1) & mask) {
      if (this.buckets[bucket] === slot) return this.empty(bucket);
    }
  }

  /** Empties the bucket, then moves back each following entry that may sit there, so that no probe stops short. */
  private empty(bucket: number): void {
    const mask = this.buckets.length - 1;
    let hole = bucket;
    for (let next = (hole + 1) & mask; this.buckets[next] !== NO_SLOT; next = (next + 1) & mask) {
      const home = this.hashes[this.buckets[next]!]! & mask;
      // The entry may move to the hole if the hole lies on its probe path, between its home bucket and where it is.
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        this.buckets[hole] = this.buckets[next]!;
        hole = next;
      }
    }
    this.buckets[hole] = NO_SLOT;
    this.count--;
  }

  private rehash(capacity: number): void {
    const old = this.buckets;
    this.buckets = new Int32Array(capacity).fill(NO_SLOT);
    const mask = capacity - 1;
    for (const slot of old) {
      if (slot === NO_SLOT) continue;
      let bucket = this.hashes[slot]! & mask;
      while (this.buckets[bucket] !== NO_SLOT) bucket = (bucket + 1) & mask;
      this.buckets[bucket] = slot;
    }
  }
}

/** FNV-1a over the first `length` UTF-16 code units, as an unsigned 32-bit number. */
export function hashUnits(key: string, length: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
