// Counters for one process. They are grouped by the time they expire (one
// group per window), so a window that has ended is forgotten in one step,
// however many clients it counted, and memory stays bounded: when the cap is
// reached the window closest to its end goes first.
import type { Clock } from '../lib/clock.js';
import type { CounterStore } from './counter-store.js';

/** Under 100 bytes each (bench/rate-limit-memory.ts): a flood of distinct clients costs under 200 MB. */
export const DEFAULT_MAX_COUNTERS = 1_500_000;

export class MemoryCounterStore implements CounterStore {
  /** Counters by the time their window is no longer needed. */
  private readonly windows = new Map<number, Map<string, number>>();
  private nextExpiry = Infinity;
  private counters = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxCounters = DEFAULT_MAX_COUNTERS,
  ) {
    if (!(maxCounters >= 1)) throw new RangeError('maxCounters must be at least 1');
  }

  /** How many counters are held. */
  get size(): number {
    return this.counters;
  }

  get(counter: string, expiresAt: number): number {
    return this.windows.get(expiresAt)?.get(counter) ?? 0;
  }

  increment(counter: string, expiresAt: number): number {
    const count = (this.windows.get(expiresAt)?.get(counter) ?? 0) + 1;
    if (count === 1) this.addRoomFor(counter);
    this.windowEnding(expiresAt).set(counter, count);
    return count;
  }

  forget(counter: string, expiresAt: number): void {
    if (this.windows.get(expiresAt)?.delete(counter) === true) this.counters -= 1;
  }

  /** Every count of a window ending after `time`: what a restart keeps (kept-counts.ts). */
  *countsEndingAfter(time: number): Generator<[counter: string, expiresAt: number, count: number]> {
    for (const [expiresAt, window] of this.windows) {
      if (expiresAt > time) for (const [counter, count] of window) yield [counter, expiresAt, count];
    }
  }

  /** Sets a count kept over a restart, unless its window has ended since. */
  restore(counter: string, expiresAt: number, count: number): void {
    if (expiresAt <= this.clock.now()) return;
    if (this.get(counter, expiresAt) === 0) this.addRoomFor(counter);
    this.windowEnding(expiresAt).set(counter, count);
  }

  /** Only new counters take memory, so this is where ended windows go; reads and busy counters need no clock. */
  private addRoomFor(counter: string): void {
    this.forgetExpired();
    while (this.counters >= this.maxCounters) this.forgetWindow(this.nextExpiry);
    this.counters += 1;
    // A name built by concatenation stays a tree of its pieces in V8 until it is read; reading a
    // character flattens it into one string, which more than halves what a kept counter costs.
    counter.charCodeAt(0);
  }

  private windowEnding(expiresAt: number): Map<string, number> {
    let window = this.windows.get(expiresAt);
    if (window === undefined) {
      window = new Map();
      this.windows.set(expiresAt, window);
      this.nextExpiry = Math.min(this.nextExpiry, expiresAt);
    }
    return window;
  }

  private forgetExpired(): void {
    const now = this.clock.now();
    while (now >= this.nextExpiry) this.forgetWindow(this.nextExpiry);
  }

  private forgetWindow(expiresAt: number): void {
    this.counters -= this.windows.get(expiresAt)?.size ?? 0;
    this.windows.delete(expiresAt);
    // Few windows are alive at once (two per limit duration), so a scan is cheap.
    this.nextExpiry = Infinity;
    for (const end of this.windows.keys()) this.nextExpiry = Math.min(this.nextExpiry, end);
  }
}
