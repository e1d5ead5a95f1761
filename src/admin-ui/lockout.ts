// A lockout as Devise's lockable keeps it in API Umbrella's admin: the
// failures of a key (an account, a client) over the trailing
// login_lockout_minutes, and once they reach login_max_failures the key is
// locked for login_lockout_minutes from that failure. (The proxy's sliding-
// window estimate, used before, let the lock fade at its window's boundary:
// locks of 56 s to 3 minutes, and up to twice the failures in a window.)
// Kept in memory: a restart, which only an operator can cause, unlocks.
import type { Clock } from '../lib/clock.js';

/** Keys are swept of old failures once there are this many, and then at twice as many as were left. */
const FIRST_SWEEP_AT = 1_000;

export class Lockout {
  /** Per key, the times of its failures within the window, oldest first. */
  private readonly failures = new Map<string, number[]>();
  private readonly lockedUntil = new Map<string, number>();
  private sweepAt = FIRST_SWEEP_AT;

  constructor(
    private readonly clock: Clock,
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {}

  /** Milliseconds until the first of `keys` that is locked may try again; 0 when none is. */
  waitMs(keys: readonly string[]): number {
    const now = this.clock.now();
    return Math.max(0, ...keys.map((key) => (this.lockedUntil.get(key) ?? 0) - now));
  }

  /** Counts a failure against each key, locking those that reach the limit. */
  fail(keys: readonly string[]): void {
    const now = this.clock.now();
    for (const key of keys) {
      const recent = this.recentFailures(key, now);
      recent.push(now);
      if (recent.length < this.maxFailures) continue;
      this.lockedUntil.set(key, now + this.windowMs);
      // Unlocked, a key starts again from no failures, as Devise's unlock does.
      this.failures.delete(key);
    }
    if (this.failures.size + this.lockedUntil.size >= this.sweepAt) this.sweep(now);
  }

  clear(key: string): void {
    this.failures.delete(key);
    this.lockedUntil.delete(key);
  }

  private recentFailures(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((at) => at > now - this.windowMs);
    this.failures.set(key, kept);
    return kept;
  }

  /** Forgets keys with neither a failure in the window nor a lock: a spray of single guesses at many accounts leaves nothing behind. */
  private sweep(now: number): void {
    for (const [key, times] of this.failures) if (times.at(-1)! <= now - this.windowMs) this.failures.delete(key);
    for (const [key, until] of this.lockedUntil) if (until <= now) this.lockedUntil.delete(key);
    this.sweepAt = Math.max(FIRST_SWEEP_AT, 2 * (this.failures.size + this.lockedUntil.size));
  }
}
