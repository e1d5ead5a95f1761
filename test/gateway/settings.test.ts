import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { EMPTY_SETTINGS, type ApiBackend, type ApiSettings, type RateLimit } from '../../src/api-backends/model.js';
import type { Embedded } from '../../src/lib/record-ids.js';
import { DEFAULT_USER_SETTINGS, type ApiUser, type KeyHolder } from '../../src/api-users/model.js';
import { compileSettings, limitsFor, mergeSettings, SettingsChooser, type BackendDefaults } from '../../src/gateway/settings.js';

const DEFAULTS: RateLimit[] = [{ duration: 1000, limit_by: 'ip', limit: 5, response_headers: false }];
const BACKEND_DEFAULTS: BackendDefaults = { rateLimits: DEFAULTS, requireHttps: false };
const CUSTOM: Embedded<RateLimit>[] = [{ id: randomUUID(), duration: 60_000, limit_by: 'api_key', limit: 7, response_headers: true }];

const settings = (overrides: Partial<ApiSettings>): ApiSettings => ({ ...EMPTY_SETTINGS, ...overrides });

function backend(base: Partial<ApiSettings>, subSettings: ApiBackend['sub_settings']): ApiBackend {
  return { settings: settings(base), sub_settings: subSettings } as ApiBackend;
}

describe('mergeSettings', () => {
  it('inherits null fields, replaces non-empty lists and adds required roles', () => {
    const parent = settings({ disable_api_key: true, append_query_string: 'a=1', headers: [{ id: randomUUID(), key: 'X-A', value: '1' }], required_roles: ['r1'] });
    const child = settings({ headers: [{ id: randomUUID(), key: 'X-B', value: '2' }], required_roles: ['r2'] });
    const merged = mergeSettings(parent, child);
    expect(merged.disable_api_key).toBe(true);
    expect(merged.append_query_string).toBe('a=1');
    expect(merged.headers).toEqual(child.headers);
    expect(merged.required_roles).toEqual(['r1', 'r2']);
  });

  it('replaces required roles when the sub-setting overrides them', () => {
    const merged = mergeSettings(settings({ required_roles: ['r1'] }), settings({ required_roles: ['r2'], required_roles_override: true }));
    expect(merged.required_roles).toEqual(['r2']);
  });

  it('takes each transition mode together with its start, from the sub-setting that sets a mode, else from the parent', () => {
    const parent = settings({
      require_https: 'transition_return_error',
      require_https_transition_start_at: '2020-01-01T00:00:00.000Z',
      api_key_verification_level: 'transition_email',
      api_key_verification_transition_start_at: '2021-01-01T00:00:00.000Z',
    });
    const inherited = compileSettings(mergeSettings(parent, settings({ api_key_verification_transition_start_at: '1999-01-01T00:00:00.000Z' })), BACKEND_DEFAULTS);
    expect(inherited.httpsRequiredSince).toBe(Date.parse('2020-01-01T00:00:00Z'));
    expect(inherited.verifiedEmailSince).toBe(Date.parse('2021-01-01T00:00:00Z'));
    const own = compileSettings(mergeSettings(parent, settings({ require_https: false, api_key_verification_level: 'none' })), BACKEND_DEFAULTS);
    expect(own.httpsRequiredSince).toBeNull();
    expect(own.requireHttps).toBe(false);
    expect(own.verifiedEmailSince).toBeNull();
    expect(compileSettings(mergeSettings(parent, settings({ api_key_verification_level: 'required_email' })), BACKEND_DEFAULTS).verifiedEmailSince).toBe(-Infinity);
  });

  it("keeps the parent's rate limits unless the sub-setting sets a mode", () => {
    const parent = settings({ rate_limit_mode: 'custom', rate_limits: CUSTOM });
    expect(mergeSettings(parent, settings({})).rate_limits).toEqual(CUSTOM);
    expect(mergeSettings(parent, settings({ rate_limit_mode: 'unlimited' })).rate_limit_mode).toBe('unlimited');
  });
});

describe('SettingsChooser', () => {
  it('takes the first sub-setting whose method and case-insensitive regex match path + query', () => {
    const chooser = SettingsChooser.compile(
      backend({}, [
        { id: randomUUID(), http_method: 'POST', regex: '^/write', settings: settings({ disable_api_key: true, append_query_string: 'post=1' }) },
        { id: randomUUID(), http_method: 'any', regex: 'PUBLIC=1', settings: settings({ disable_api_key: true, append_query_string: 'public=1' }) },
        { id: randomUUID(), http_method: 'any', regex: 'public', settings: settings({ append_query_string: 'never=1' }) },
      ]),
      BACKEND_DEFAULTS,
    );
    expect(chooser.choose('POST', '/write/x', '').queryAppend?.text).toBe('post=1');
    expect(chooser.choose('GET', '/write/x', '').disableApiKey).toBe(false);
    expect(chooser.choose('GET', '/read', 'public=1').queryAppend?.text).toBe('public=1');
    expect(chooser.choose('GET', '/read', 'x=1').queryAppend).toBeNull();
  });

  it('skips a stored sub-setting without a regex, as API Umbrella does, instead of matching every request', () => {
    const withoutRegex = (regex: unknown) => ({ http_method: 'any', regex, settings: settings({ append_query_string: 'first=1' }) }) as ApiBackend['sub_settings'][number];
    for (const regex of [undefined, null, '']) {
      const chooser = SettingsChooser.compile(
        backend({}, [withoutRegex(regex), { id: randomUUID(), http_method: 'any', regex: '^/sub/', settings: settings({ append_query_string: 'second=1' }) }]),
        BACKEND_DEFAULTS,
      );
      expect(chooser.choose('GET', '/sub/x', '').queryAppend?.text, String(regex)).toBe('second=1');
      expect(chooser.choose('GET', '/other/null', '').queryAppend, String(regex)).toBeNull();
    }
  });
});

describe('limitsFor', () => {
  const user = (mode: ApiUser['settings']['rate_limit_mode']) =>
    ({ settings: { ...DEFAULT_USER_SETTINGS, rate_limit_mode: mode, rate_limits: mode === 'custom' ? CUSTOM : [] } }) as unknown as KeyHolder;

  it('resolves backend modes against the defaults, and lets the user mode win', () => {
    const inherited = compileSettings(settings({}), BACKEND_DEFAULTS);
    const unlimited = compileSettings(settings({ rate_limit_mode: 'unlimited' }), BACKEND_DEFAULTS);
    const custom = compileSettings(settings({ rate_limit_mode: 'custom', rate_limits: CUSTOM }), BACKEND_DEFAULTS);
    expect(limitsFor(inherited, null)).toEqual(DEFAULTS);
    expect(limitsFor(unlimited, null)).toEqual([]);
    expect(limitsFor(custom, null)).toEqual(CUSTOM);
    expect(limitsFor(inherited, user('unlimited'))).toEqual([]);
    expect(limitsFor(unlimited, user('custom'))).toEqual(CUSTOM);
    expect(limitsFor(custom, user(null))).toEqual(CUSTOM);
  });
});
