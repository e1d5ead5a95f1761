// Signup abuse resistance: a per-IP limit on signups, and a honeypot field
// that people never see and form-filling bots fill in.
import type { AppContext } from '../context.js';
import type { RateLimit } from '../api-backends/model.js';
import { inMinutes } from '../lib/time-format.js';

/** The hidden field; a browser user leaves it empty. */
export const HONEYPOT_FIELD = 'phone_number';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export type LimitVerdict = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number; readonly message: string };

export function filledHoneypot(body: unknown): boolean {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[HONEYPOT_FIELD] : undefined;
  return typeof value === 'string' ? value.trim() !== '' : value !== undefined && value !== null;
}

/** Counts one signup from this IP; a limit of 0 leaves that window unlimited. */
export function checkSignupLimit(context: AppContext, ip: string): Promise<LimitVerdict> {
  return checkClientLimit(context, 'signup', ip, 'signups');
}

/** Counts one of `what` (signups, messages) from this IP against signupLimits, in `bucket`. */
export async function checkClientLimit(context: AppContext, bucket: string, ip: string, what: string): Promise<LimitVerdict> {
  const decision = await context.rateLimiter.check({ bucket, apiKeyPrefix: null, ip, limits: signupLimits(context) });
  if (decision.allowed) return { allowed: true };
  // signupLimits leaves a limit of 0 out, so some wait always lets the next one through.
  const retryAfterSeconds = decision.retryAfterSeconds!;
  return { allowed: false, retryAfterSeconds, message: `Too many ${what} from your network. Please try again ${inMinutes(retryAfterSeconds * 1000)}.` };
}

/** Per client IP: signup.rate_limit_per_minute and _per_hour (0 turns one off). The contact API counts the same limits in a bucket of its own. */
export function signupLimits(context: AppContext): RateLimit[] {
  const { rate_limit_per_minute: perMinute, rate_limit_per_hour: perHour } = context.config.signup;
  const limits: RateLimit[] = [];
  if (perMinute > 0) limits.push({ duration: MINUTE_MS, limit_by: 'ip', limit: perMinute, response_headers: false });
  if (perHour > 0) limits.push({ duration: HOUR_MS, limit_by: 'ip', limit: perHour, response_headers: false });
  return limits;
}
