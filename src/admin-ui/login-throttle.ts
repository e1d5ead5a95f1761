// Lockout after repeated failed sign-ins, per account and per client IP,
// counted by the shared rate limiter: login_max_failures failures within
// login_lockout_minutes lock further attempts until the window has passed.
import type { RateLimit } from '../api-backends/model.js';
import type { Config } from '../config/schema.js';
import type { RateLimiter, RateLimitRequest } from '../rate-limit/limiter.js';

const BUCKET = 'admin-login';

export class LoginThrottle {
  private readonly limits: readonly RateLimit[];

  constructor(
    private readonly limiter: RateLimiter,
    settings: Config['admin'],
  ) {
    const duration = settings.login_lockout_minutes * 60_000;
    const limit = settings.login_max_failures;
    this.limits = [
      { duration, limit, limit_by: 'api_key', response_headers: false },
      { duration, limit, limit_by: 'ip', response_headers: false },
    ];
  }

  /** Asked before the password is verified, so a locked account costs no hashing and reveals nothing. */
  async isLocked(email: string, ip: string): Promise<boolean> {
    return !(await this.limiter.peek(this.request(email, ip))).allowed;
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    await this.limiter.check(this.request(email, ip));
  }

  private request(email: string, ip: string): RateLimitRequest {
    // The account counter is keyed by the email as typed (normalised), whether or not such an admin exists.
    return { bucket: BUCKET, apiKeyPrefix: `account:${email.trim().toLowerCase()}`, ip, limits: this.limits };
  }
}
