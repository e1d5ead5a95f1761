import { booleanField, ErrorCollector, isPlainObject, textField, toInteger, type Parsed } from '../lib/validation-errors.js';
import { sentIdOf, type Embedded } from '../lib/record-ids.js';
import { RATE_LIMIT_MODES, type LimitBy, type RateLimit, type RateLimitMode } from './model.js';

export const LIMIT_BY: readonly LimitBy[] = ['ip', 'api_key'];

/**
 * API Umbrella's other spellings, taken wherever a rate limit is read (the
 * admin API, the config file): its admin API answers "apiKey" (its legacy
 * spelling) and its config files say limit_to.
 */
export const LIMIT_BY_SPELLINGS: Readonly<Record<string, LimitBy>> = { apiKey: 'api_key' };
/** API Umbrella keeps a limit in an integer column; a window longer than a year has no use, and its arithmetic would lose precision. */
export const MAX_LIMIT = 2_147_483_647;
export const MAX_DURATION_MS = 366 * 24 * 3600 * 1000;

export const LIMIT_SPELLINGS = { limit_to: 'limit' } as const;

function limitByOf(value: unknown): unknown {
  return typeof value === 'string' && Object.hasOwn(LIMIT_BY_SPELLINGS, value) ? LIMIT_BY_SPELLINGS[value] : value;
}

/** Parses a rate_limits list (config, backend settings or user settings); field names are relative to `field`. */
export function parseRateLimits(raw: unknown, field = 'rate_limits', collector = new ErrorCollector()): Parsed<RateLimit[]> {
  if (raw === undefined || raw === null) return { ok: true, value: [] };
  if (!Array.isArray(raw)) {
    collector.add(field, 'must be a list');
    return { ok: false, errors: collector.errors };
  }
  const limits: RateLimit[] = [];
  /** limit_by and duration of the limits so far: as in API Umbrella, two limits may not count the same window. */
  const windows = new Set<string>();
  raw.forEach((item: unknown, index) => {
    const at = `${field}[${index}]`;
    if (!isPlainObject(item)) return collector.add(at, 'must be an object');
    const duration = toInteger(item.duration);
    const rawLimit = item.limit ?? item.limit_to;
    const limit = toInteger(rawLimit);
    const limitBy = limitByOf(item.limit_by);
    // A number too large to be an exact integer (1e20, 400 digits) is past the bound, not a bad number.
    if ((duration ?? Number(item.duration)) > MAX_DURATION_MS) collector.add(`${at}.duration`, `must be at most ${MAX_DURATION_MS} milliseconds (366 days)`);
    else if (duration === undefined || duration < 1) collector.add(`${at}.duration`, 'must be a positive number of milliseconds');
    if ((limit ?? Number(rawLimit)) > MAX_LIMIT) collector.add(`${at}.limit`, `must be at most ${MAX_LIMIT}`);
    else if (limit === undefined || limit < 0) collector.add(`${at}.limit`, 'must be a number of requests (0 or more)');
    if (!LIMIT_BY.includes(limitBy as LimitBy)) collector.add(`${at}.limit_by`, 'is not included in the list');
    const window = `${String(limitBy)} ${duration}`;
    if (duration !== undefined && windows.has(window)) collector.add(`${at}.duration`, 'has already been taken');
    windows.add(window);
    if (duration !== undefined && limit !== undefined && LIMIT_BY.includes(limitBy as LimitBy)) {
      limits.push({ duration, limit, limit_by: limitBy as LimitBy, response_headers: booleanField(item.response_headers, `${at}.response_headers`, collector) ?? false });
    }
  });
  return collector.isEmpty ? { ok: true, value: limits } : { ok: false, errors: collector.errors };
}

/** A settings object's rate limit mode and limits: a backend's, a sub-setting's or a user's (`at`: that object's field). */
export interface RateLimitSettings {
  readonly rate_limit_mode: RateLimitMode;
  readonly rate_limits: Embedded<RateLimit>[];
}

/**
 * Parses rate_limit_mode and rate_limits of a settings object. Limits sent
 * without a mode are stored as "custom": API Umbrella applies a non-empty
 * rate_limits whatever the mode (it reads the mode only for "unlimited"), and
 * its operators' scripts and its own tests send limits alone; Parasol applies
 * limits only under "custom", so they would otherwise be stored and silently
 * ignored. Done at input, not when compiling, so what is already stored keeps
 * its meaning (the admin's forms send rows only under "custom"; an update
 * over a stored backend drops unused rows first: asUpdateBase). Each limit
 * keeps the id sent with it (record-ids.ts); its document makes them unique.
 */
export function parseRateLimitSettings(raw: Record<string, unknown>, at: string, errors: ErrorCollector): RateLimitSettings {
  const mode = textField(raw.rate_limit_mode, `${at}.rate_limit_mode`, errors);
  if (mode !== null && !RATE_LIMIT_MODES.includes(mode as 'custom')) errors.add(`${at}.rate_limit_mode`, 'is not included in the list');
  const parsed = parseRateLimits(raw.rate_limits, `${at}.rate_limits`, errors);
  const limits = parsed.ok ? parsed.value : [];
  return { rate_limit_mode: mode === null && limits.length > 0 ? 'custom' : (mode as RateLimitMode), rate_limits: withSentIds(limits, raw.rate_limits) };
}

/** The limits parseRateLimits read, each with the id sent with it: when they parse, there is one limit per item sent, in order. */
function withSentIds(limits: readonly RateLimit[], raw: unknown): Embedded<RateLimit>[] {
  const sent: unknown[] = Array.isArray(raw) ? raw : [];
  return limits.map((limit, index) => {
    const item = sent[index];
    return { id: sentIdOf(isPlainObject(item) ? item : {}), ...limit };
  });
}
