// Lockout after repeated failed sign-ins, per account and per client (an
// IPv4 address, an IPv6 /64: clientNetwork), counted by the shared rate
// limiter: login_max_failures failures within login_lockout_minutes lock
// further attempts until the window has passed.
// A successful sign-in clears its account's failures, as Devise's lockable
// does in API Umbrella's admin; the IP's stay, so an attacker with one
// account of their own cannot clear their guesses at others.
import type { RateLimit } from '../api-backends/model.js';
import type { Config } from '../config/schema.js';
import { clientNetwork } from '../lib/client-network.js';
import { perContext } from '../lib/per-context.js';
import type { RateLimiter, RateLimitRequest } from '../rate-limit/limiter.js';

const BUCKET = 'admin-login';

/** One throttle per running Parasol, shared by sign-in and My Account's current-password check. */
export const loginThrottle = perContext((context) => new LoginThrottle(context.rateLimiter, context.config.admin));

/** login_max_failures within login_lockout_minutes, counted per account (as a key) and per client (as the IP: clientNetwork's). */
function accountAndIpLimits(settings: Config['admin']): { account: readonly RateLimit[]; both: readonly RateLimit[] } {
  const duration = settings.login_lockout_minutes * 60_000;
  const limit = settings.login_max_failures;
  const account: readonly RateLimit[] = [{ duration, limit, limit_by: 'api_key', response_headers: false }];
  return { account, both: [...account, { duration, limit, limit_by: 'ip', response_headers: false }] };
}

/** What the account counters are keyed by: the email as typed (normalised), whether or not such an admin exists. */
function accountKey(email: string): string {
  return `account:${email.trim().toLowerCase()}`;
}

export class LoginThrottle {
  private readonly limits: readonly RateLimit[];
  private readonly accountLimits: readonly RateLimit[];
  /** The attempt last queued per account and per client; the next one waits for it. */
  private readonly lastAttempt = new Map<string, Promise<void>>();

  constructor(
    private readonly limiter: RateLimiter,
    settings: Config['admin'],
  ) {
    const { account, both } = accountAndIpLimits(settings);
    this.accountLimits = account;
    this.limits = both;
  }

  /**
   * One sign-in attempt from the client IP `ip`: 'locked' without verifying
   * while the account or the client (the IP's /64 for IPv6) is locked (so it
   * costs no hashing and reveals nothing), else what `verify` found, a null
   * counted as a failure and anything else clearing the account's failures.
   * Attempts on the same account or from the same client run one at a time,
   * so simultaneous guesses cannot all pass the lock before the first failure
   * is counted.
   */
  async attempt<T>(email: string, ip: string, verify: () => Promise<T | null>): Promise<T | null | 'locked'> {
    const request = this.request(email, ip);
    return this.oneAtATime([`account:${request.apiKeyPrefix}`, `ip:${request.ip}`], async () => {
      if (!(await this.limiter.peek(request)).allowed) return 'locked';
      const result = await verify();
      if (result === null) await this.limiter.check(request);
      else await this.limiter.forget({ ...request, limits: this.accountLimits });
      return result;
    });
  }

  /** Clears the account's failures, as a successful sign-in does (a password just set through a reset or invite link signs in with it at once). */
  async clearAccount(email: string, ip: string): Promise<void> {
    await this.limiter.forget({ ...this.request(email, ip), limits: this.accountLimits });
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

  private request(email: string, ip: string): RateLimitRequest {
    return { bucket: BUCKET, apiKeyPrefix: accountKey(email), ip: clientNetwork(ip), limits: this.limits };
  }
}

const RESET_BUCKET = 'admin-password-reset';

/** One per running Parasol, for the "Forgot password" form. */
export const passwordResetThrottle = perContext((context) => new PasswordResetThrottle(context.rateLimiter, context.config.admin));

/**
 * "Forgot password" requests, counted per email and per client (an IPv4
 * address, an IPv6 /64: clientNetwork) with the sign-in's numbers
 * (login_max_failures within login_lockout_minutes), each request whether
 * or not the address is an admin's: a flood sends an address a few mails at
 * most, and being refused tells nothing of the address. Counted by the
 * shared rate limiter, apart from sign-in failures.
 */
export class PasswordResetThrottle {
  private readonly limits: readonly RateLimit[];

  constructor(
    private readonly limiter: RateLimiter,
    settings: Config['admin'],
  ) {
    this.limits = accountAndIpLimits(settings).both;
  }

  /** Counts the request from the client IP `ip`; false (not counted) once the email or the client has made its share. */
  async allow(email: string, ip: string): Promise<boolean> {
    const request = { bucket: RESET_BUCKET, apiKeyPrefix: accountKey(email), ip: clientNetwork(ip), limits: this.limits };
    return (await this.limiter.check(request)).allowed;
  }
}
