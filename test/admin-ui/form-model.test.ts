import { describe, expect, it } from 'vitest';
import type { ApiBackendConfig } from '../../src/api-backends/model.js';
import { parseApiBackend } from '../../src/api-backends/validate.js';
import { backendFieldLabel, backendInput, formFromBackend, formFromSubmission } from '../../src/admin-ui/api-backends/form-model.js';
import { decodeNestedForm } from '../../src/lib/nested-form.js';

/** What a browser would post for a form model: bracketed names, checkboxes only when checked. */
function postedFields(value: unknown, name = ''): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => postedFields(item, `${name}[${index}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => postedFields(item, name === '' ? key : `${name}[${key}]`));
  }
  if (typeof value === 'boolean') return value ? [[name, '1']] : [];
  return [[name, String(value)]];
}

const FULL: ApiBackendConfig = parseOk({
  name: 'Everything',
  frontend_host: 'api.example.com',
  backend_host: 'backend.internal:8443',
  backend_protocol: 'https',
  balance_algorithm: 'ip_hash',
  servers: [{ host: 'a.internal', port: 8443 }, { host: 'b.internal', port: 8444 }],
  url_matches: [{ frontend_prefix: '/a/', backend_prefix: '/' }, { frontend_prefix: '/b/', backend_prefix: '/bee/' }],
  settings: {
    append_query_string: 'x=1&y=2',
    headers: [{ key: 'X-A', value: 'a: with colon' }],
    default_response_headers: [{ key: 'Cache-Control', value: 'max-age=60' }],
    override_response_headers: [{ key: 'X-Frame-Options', value: 'DENY' }, { key: 'X-B', value: 'b' }],
    http_basic_auth: 'u:p',
    require_https: 'transition_return_error',
    require_https_transition_start_at: '2026-11-01T12:00:00.000Z',
    disable_api_key: false,
    pass_api_key_header: true,
    pass_api_key_query_param: false,
    required_roles: ['r1', 'r2'],
    allowed_ips: ['10.0.0.0/8', '192.0.2.1'],
    allowed_referers: ['https://example.com/*'],
    rate_limit_mode: 'custom',
    rate_limits: [
      { duration: 1000, limit_by: 'ip', limit: 5, response_headers: false },
      { duration: 86_400_000, limit_by: 'api_key', limit: 10_000, response_headers: true },
      { duration: 1500, limit_by: 'api_key', limit: 3, response_headers: false },
    ],
    rate_limit_bucket_name: 'shared',
    anonymous_rate_limit_behavior: 'ip_only',
    authenticated_rate_limit_behavior: 'api_key_only',
    error_templates: { json: '{"oops": "{{message}}"}' },
    error_data: { api_key_missing: { signup_url: 'https://example.com/signup' } },
    disable_analytics: true,
    api_key_verification_level: 'required_email',
  },
  sub_settings: [
    { http_method: 'DELETE', regex: '^/admin', settings: { required_roles: ['admin'], required_roles_override: true, require_https: false } },
    { http_method: 'any', regex: '^/new', settings: { api_key_verification_level: 'transition_email', api_key_verification_transition_start_at: '2026-12-01T00:00:00.000Z' } },
  ],
  rewrites: [
    { matcher_type: 'route', http_method: 'GET', frontend_matcher: '/info/:id?format=:format', backend_replacement: '/items/{{id}}?f={{format}}' },
    { matcher_type: 'regex', http_method: 'any', frontend_matcher: 'state=([A-Z]+)', backend_replacement: 'region=US-$1' },
  ],
});

function parseOk(raw: unknown): ApiBackendConfig {
  const parsed = parseApiBackend(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.value;
}

describe('the API backend form model', () => {
  it('round-trips every field, embedded ids too: saved backend → form → post → the same backend', () => {
    const posted = Object.fromEntries(postedFields(formFromBackend(FULL)));
    const { input, errors } = backendInput(formFromSubmission(decodeNestedForm(posted)), FULL);
    expect(errors).toEqual({});
    expect(parseOk(input)).toEqual(FULL);
  });

  it('drops rows left entirely blank', () => {
    const form = formFromSubmission(decodeNestedForm({ 'servers[0][host]': '', 'servers[0][port]': '', 'servers[1][host]': 'a', 'servers[1][port]': '1' }));
    expect(form.servers).toEqual([{ id: '', host: 'a', port: '1' }]);
  });

  it("takes error data in YAML, as API Umbrella's form does, and in JSON, and shows it back as YAML", () => {
    const yaml = formFromSubmission(decodeNestedForm({ 'settings[error_data]': 'api_key_missing:\n  hello1: foo\n  hello2: bar' }));
    const json = formFromSubmission(decodeNestedForm({ 'settings[error_data]': '{"api_key_missing": {"hello1": "foo", "hello2": "bar"}}' }));
    for (const form of [yaml, json]) expect(backendInput(form, null).input.settings).toMatchObject({ error_data: { api_key_missing: { hello1: 'foo', hello2: 'bar' } } });
    expect(formFromBackend(FULL).settings.error_data).toBe('api_key_missing:\n  signup_url: https://example.com/signup\n');
  });

  it('reports error data that is not a mapping against its field', () => {
    const form = formFromSubmission(decodeNestedForm({ 'settings[error_data]': '[1, 2' }));
    expect(Object.keys(backendInput(form, null).errors)).toEqual(['settings.error_data']);
  });

  it('sends rate limit rows only under "Custom rate limits", the form keeping them to show', () => {
    const row = { duration_value: '1', duration_unit: 'hours', limit_by: 'api_key', limit: '3' };
    const settings = (mode: string) => ({ rate_limit_mode: mode, rate_limits: [row] });
    const posted = (mode: string) => formFromSubmission(decodeNestedForm(Object.fromEntries(postedFields({ settings: settings(mode), sub_settings: [{ regex: '^/x', settings: settings(mode) }] }))));
    /** The rate_limits the parser gets: the backend's and the sub-setting's. */
    const sent = (mode: string) => {
      const input = backendInput(posted(mode), null).input as { settings: { rate_limits: unknown[] }; sub_settings: { settings: { rate_limits: unknown[] } }[] };
      return [input.settings.rate_limits, input.sub_settings[0]!.settings.rate_limits];
    };
    expect(posted('').settings.rate_limits).toHaveLength(1);
    expect(sent('')).toEqual([[], []]);
    expect(sent('unlimited')).toEqual([[], []]);
    const limit = { id: '', duration: 3_600_000, limit_by: 'api_key', limit: '3', response_headers: false };
    expect(sent('custom')).toEqual([[limit], [limit]]);
  });

  it('names fields for people', () => {
    expect(backendFieldLabel('url_matches[0].frontend_prefix')).toBe('URL Prefix 1 › Frontend Prefix');
    expect(backendFieldLabel('sub_settings[1].settings.rate_limits[0].limit')).toBe('Sub-URL Setting 2 › Rate Limit 1 › Limit');
    expect(backendFieldLabel('settings.headers[0].key')).toBe('Global Request Settings › Set Request Headers line 1 › name');
    expect(backendFieldLabel('rewrites[2].frontend_matcher')).toBe('URL Rewrite 3 › Frontend Matcher');
  });
});

describe('decodeNestedForm', () => {
  it('nests bracketed names and keeps row order as sent', () => {
    expect(JSON.parse(JSON.stringify(decodeNestedForm({ 'a[b][x9][c]': '1', 'a[b][0][c]': '2', plain: 'p' })))).toEqual({ a: { b: { 0: { c: '2' }, x9: { c: '1' } } }, plain: 'p' });
  });

  it('ignores names that would reach Object.prototype, and malformed or too deep ones', () => {
    const tree = decodeNestedForm({ '__proto__[polluted]': 'yes', 'a[constructor][prototype][x]': '1', 'b[': '1', 'c[1][2][3][4][5][6][7][8]': 'deep' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(tree)).toEqual([]);
  });

  it('keeps the last of a repeated field and never lets a value and a group collide', () => {
    expect(JSON.parse(JSON.stringify(decodeNestedForm({ a: ['1', '2'], 'b[c]': 'x', b: 'y' })))).toEqual({ a: '2', b: { c: 'x' } });
  });
});
