// The backend form carries its rows' ids (API Umbrella's embedded record ids)
// through an edit: saving it unchanged changes no id, and the backend stays
// identical to its live copy.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiBackend, ApiBackendConfig } from '../../src/api-backends/model.js';
import { parseApiBackend } from '../../src/api-backends/validate.js';
import { startSignedIn, type AdminApp, type AdminClient } from './helpers/admin-client.js';
import { formFieldsOf } from './helpers/form-fields.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

const SETTINGS = {
  headers: [{ key: 'X-Header1', value: 'one' }, { key: 'X-Header2', value: 'two' }],
  default_response_headers: [{ key: 'Cache-Control', value: 'max-age=60' }],
  override_response_headers: [{ key: 'X-Frame-Options', value: 'DENY' }],
  rate_limit_mode: 'custom',
  rate_limits: [{ duration: 60_000, limit_by: 'ip', limit: 5 }, { duration: 3_600_000, limit_by: 'api_key', limit: 100 }],
};

/** A live backend with records in every embedded list, and a draft the same. */
function publishedBackend(): ApiBackend {
  const parsed = parseApiBackend({
    name: 'Every list',
    frontend_host: 'api.example.com',
    backend_host: 'example.com',
    servers: [{ host: '10.0.0.1', port: 80 }, { host: '10.0.0.2', port: 80 }],
    url_matches: [{ frontend_prefix: '/every/', backend_prefix: '/' }],
    settings: SETTINGS,
    sub_settings: [{ http_method: 'POST', regex: '^/write', settings: SETTINGS }, { http_method: 'any', regex: '^/read', settings: {} }],
    rewrites: [{ matcher_type: 'route', http_method: 'any', frontend_matcher: '/a', backend_replacement: '/1' }],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const api = running.context.backends.create(parsed.value, 'test');
  running.context.publisher.publish([api.id], 'test');
  return api;
}

/** Each embedded record's id, in document order. */
function idsOf(api: ApiBackendConfig): string[] {
  const settingsIds = (settings: ApiBackendConfig['settings']) =>
    [settings.headers, settings.default_response_headers, settings.override_response_headers, settings.rate_limits].flat().map((record) => record.id);
  return [...[api.servers, api.url_matches, api.rewrites, api.sub_settings].flat().map((record) => record.id), ...settingsIds(api.settings), ...api.sub_settings.flatMap((sub) => settingsIds(sub.settings))];
}

describe('the API backend form', () => {
  it('saved unchanged, keeps every embedded id and leaves the backend identical to its live copy', async () => {
    const api = publishedBackend();
    const edit = await client.get(`/admin/apis/${api.id}/edit`);
    const saved = await client.post(`/admin/apis/${api.id}`, Object.fromEntries(formFieldsOf(edit.body, `/admin/apis/${api.id}`)));
    expect(saved.statusCode, saved.body).toBe(303);
    const after = running.context.backends.get(api.id)!;
    expect(idsOf(after)).toEqual(idsOf(api));
    expect(running.context.publisher.pendingChanges().identical.map((change) => change.id)).toEqual([api.id]);
  });

  it('keeps the ids of the rows and header lines left, a new row or line getting a new one', async () => {
    const api = publishedBackend();
    const edit = await client.get(`/admin/apis/${api.id}/edit`);
    const fields = Object.fromEntries(formFieldsOf(edit.body, `/admin/apis/${api.id}`));
    for (const name of Object.keys(fields)) if (name.startsWith('servers[0]')) delete fields[name];
    fields['settings[headers]'] = 'X-Header2: two\nX-Header3: three';
    expect((await client.post(`/admin/apis/${api.id}`, fields)).statusCode).toBe(303);
    const after = running.context.backends.get(api.id)!;
    expect(after.servers.map((server) => server.id)).toEqual([api.servers[1]!.id]);
    expect(after.settings.headers[0]!.id).toBe(api.settings.headers[1]!.id);
    expect(idsOf(api)).not.toContain(after.settings.headers[1]!.id);
    expect(running.context.publisher.pendingChanges().modified.map((change) => change.id)).toEqual([api.id]);
  });
});
