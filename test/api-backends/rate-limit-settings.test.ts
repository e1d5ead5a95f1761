// Rate limits sent without rate_limit_mode are stored as "custom" at input
// (backends, sub-settings, users), as API Umbrella applies them without one.
import { describe, expect, it } from 'vitest';
import { parseRateLimitSettings } from '../../src/api-backends/rate-limits.js';
import { parseApiBackend } from '../../src/api-backends/validate.js';
import { parseApiUser } from '../../src/api-users/validate.js';
import { ErrorCollector } from '../../src/lib/validation-errors.js';

const LIMIT = { duration: 60_000, limit_by: 'api_key', limit_to: 3, accuracy: 5000, distributed: true };
const STORED = { duration: 60_000, limit_by: 'api_key', limit: 3, response_headers: false };

function parsed(raw: Record<string, unknown>) {
  const errors = new ErrorCollector();
  return { ...parseRateLimitSettings(raw, 'settings', errors), errors: errors.errors };
}

describe('parseRateLimitSettings', () => {
  it('stores limits sent with a null, missing or blank mode as custom', () => {
    for (const mode of [null, undefined, '', '  ']) {
      expect(parsed({ rate_limit_mode: mode, rate_limits: [LIMIT] })).toEqual({ rate_limit_mode: 'custom', rate_limits: [{ ...STORED, id: expect.any(String) }], errors: {} });
    }
  });

  it('keeps unlimited with its limits, custom without any, and null without any', () => {
    expect(parsed({ rate_limit_mode: 'unlimited', rate_limits: [LIMIT] })).toMatchObject({ rate_limit_mode: 'unlimited', rate_limits: [STORED] });
    expect(parsed({ rate_limit_mode: 'custom', rate_limits: [] })).toMatchObject({ rate_limit_mode: 'custom', rate_limits: [] });
    expect(parsed({ rate_limit_mode: null, rate_limits: [] })).toMatchObject({ rate_limit_mode: null, rate_limits: [] });
    expect(parsed({})).toMatchObject({ rate_limit_mode: null, rate_limits: [] });
  });

  it('still refuses an unknown mode and a bad limit, naming the field', () => {
    expect(parsed({ rate_limit_mode: 'some', rate_limits: [] }).errors).toEqual({ 'settings.rate_limit_mode': ['is not included in the list'] });
    expect(parsed({ rate_limits: [{ ...LIMIT, duration: 0 }] })).toMatchObject({
      rate_limit_mode: null,
      errors: { 'settings.rate_limits[0].duration': ['must be a positive number of milliseconds'] },
    });
  });
});

describe('bounds', () => {
  it('refuses a duration or limit a number cannot keep, or past its bound, saying the bound, where 400 digits were stored as null (a null limit refused every request)', () => {
    const digits = '9'.repeat(400);
    expect(parsed({ rate_limits: [{ ...LIMIT, duration: digits, limit_to: digits }] }).errors).toEqual({
      'settings.rate_limits[0].duration': ['must be at most 31622400000 milliseconds (366 days)'],
      'settings.rate_limits[0].limit': ['must be at most 2147483647'],
    });
    expect(parsed({ rate_limits: [{ ...LIMIT, duration: 1e20, limit_to: 2_147_483_648 }] }).errors).toEqual({
      'settings.rate_limits[0].duration': ['must be at most 31622400000 milliseconds (366 days)'],
      'settings.rate_limits[0].limit': ['must be at most 2147483647'],
    });
    expect(parsed({ rate_limits: [{ ...LIMIT, duration: 'soon', limit_to: -1 }] }).errors).toEqual({
      'settings.rate_limits[0].duration': ['must be a positive number of milliseconds'],
      'settings.rate_limits[0].limit': ['must be a number of requests (0 or more)'],
    });
    expect(parsed({ rate_limits: [{ ...LIMIT, duration: 367 * 86_400_000 }] }).errors).toEqual({
      'settings.rate_limits[0].duration': ['must be at most 31622400000 milliseconds (366 days)'],
    });
    expect(parsed({ rate_limits: [{ ...LIMIT, duration: 366 * 86_400_000, limit_to: 2_147_483_647 }] }).errors).toEqual({});
  });
});

describe('backends and users', () => {
  it("take a backend's and a sub-setting's limits without a mode as custom; a sub-setting without limits still inherits", () => {
    const result = parseApiBackend({
      name: 'Lower',
      frontend_host: 'api.example.com',
      backend_host: 'backend.internal',
      servers: [{ host: '10.0.0.1', port: 80 }],
      url_matches: [{ frontend_prefix: '/lower/', backend_prefix: '/' }],
      settings: { rate_limits: [LIMIT] },
      sub_settings: [
        { http_method: 'any', regex: '^/higher', settings: { rate_limits: [{ ...LIMIT, limit_to: 7 }] } },
        { http_method: 'any', regex: '^/same', settings: { rate_limits: [] } },
      ],
    });
    expect(result.ok && [result.value.settings, ...result.value.sub_settings.map((sub) => sub.settings)].map((settings) => settings.rate_limit_mode)).toEqual(['custom', 'custom', null]);
  });

  it("take a user's limits without a mode as custom", () => {
    const created = parseApiUser({ email: 'a@example.com', first_name: 'A', last_name: 'B', settings: { rate_limits: [LIMIT] } });
    expect(created.ok && created.value.settings).toMatchObject({ rate_limit_mode: 'custom', rate_limits: [STORED] });
  });
});
