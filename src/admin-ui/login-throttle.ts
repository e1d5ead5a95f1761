// Lockout after repeated failed sign-ins, per account and per client (an
// IPv4 address, an IPv6 /64: clientNetwork): login_max_failures failures
// within login_lockout_minutes lock further attempts for
// login_lockout_minutes (see lockout.ts).
// A successful sign-in clears its account's failures, as Devise's lockable
// does in API Umbrella's admin; the IP's stay, so an attacker with one
// account of their own cannot clear their guesses at others.
import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import { clientNetwork } from '../lib/client-network.js';
import { perContext } from '../lib/per-context.js';
import { Lockout } from './lockout.js';

/** One throttle per running Parasol, shared by sign-in and My Account's current-password check. */
export const loginThrottle = perContext((context) => new LoginThrottle(context.clock, context.config.admin));

/** An attempt refused without being tried, and for how long attempts will be. */
export interface Locked {
  readonly lockedForMs: number;
}

function lockoutOf(clock: Clock, settings: Config['admin']): Lockout {
  return new Lockout(clock, settings.login_max_failures, settings.login_lockout_minutes * 60_000);
}

/** What the account counters are keyed by: the email as typed (normalised), whether or not such an admin exists. */
function accountKey(email: string): string {
  return `account:${email.trim().toLowerCase()}`;
}

function clientKey(ip: string): string {
  return `client:${clientNetwork(ip)}`;
}

export class LoginThrottle {
  private readonly lockout: Lockout;
  /** The attempt last queued per account and per client; the next one waits for it. */
  private readonly lastAttempt = new Map<string, Promise<void>>();

  constructor(clock: Clock, settings: Config['admin']) {
    this.lockout = lockoutOf(clock, settings);
  }

  /**
   * One sign-in attempt from the client IP `ip`: Locked without verifying
   * while the account or the client (the IP's /64 for IPv6) is locked (so it
   * costs no hashing and reveals nothing), else what `verify` found, a null
   * counted as a failure and anything else clearing the account's failures.
   * Attempts on the same account or from the same client run one at a time,
   * so simultaneous guesses cannot all pass the lock before the first failure
   * is counted.
   */
  async attempt<T>(email: string, ip: string, verify: () => Promise<T | null>): Promise<T | null | Locked> {
    const keys = [accountKey(email), clientKey(ip)];
    return this.oneAtATime(keys, async () => {
      const lockedForMs = this.lockout.waitMs(keys);
      if (lockedForMs > 0) return { lockedForMs };
      const result = await verify();
      if (result === null) this.lockout.fail(keys);
      else this.lockout.clear(keys[0]!);
      return result;
    });
  }

  /** Clears the account's failures, as a successful sign-in does (a password just set through a reset or invite link signs in with it at once). */
  clearAccount(email: string): void {
    this.lockout.clear(accountKey(email));
  }

  private async oneAtATime<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
    const earlier = keys.map((key) => this.lastAttempt.get(key));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    for (const key of keys) this.lastAttempt.set(key, finished);
    try {
      await Promise.all(earlier);
      return await task();
    } finally {
      finish();
      for (const key of keys) if (this.lastAttempt.get(key) === finished) this.lastAttempt.delete(key);
    }
  }
}

/** Whether `result` is an attempt refused by the lockout. */
export function isLocked(result: unknown): result is Locked {
  return typeof result === 'object' && result !== null && 'lockedForMs' in result;
}

/** One per running Parasol, for the "Forgot password" form. */
export const passwordResetThrottle = perContext((context) => new PasswordResetThrottle(context.clock, context.config.admin));

/**
 * "Forgot password" requests, counted per email and per client (an IPv4
 * address, an IPv6 /64: clientNetwork) with the sign-in's numbers
 * (login_max_failures within login_lockout_minutes, then locked for as
 * long), each request whether or not the address is an admin's: a flood
 * sends an address a few mails at most, and being refused tells nothing of
 * the address. Counted apart from sign-in failures.
 */
export class PasswordResetThrottle {
  private readonly lockout: Lockout;

  constructor(clock: Clock, settings: Config['admin']) {
    this.lockout = lockoutOf(clock, settings);
  }

  /** Counts the request from the client IP `ip`; Locked (not counted) once the email or the client has made its share. */
  allow(email: string, ip: string): true | Locked {
    const keys = [accountKey(email), clientKey(ip)];
    const lockedForMs = this.lockout.waitMs(keys);
    if (lockedForMs > 0) return { lockedForMs };
    this.lockout.fail(keys);
    return true;
  }
}
