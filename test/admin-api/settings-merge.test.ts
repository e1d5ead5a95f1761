// A PUT's settings change what they name and keep the rest, as API Umbrella's
// (test/apis/v1/users/test_update_embedded_array_fields.rb and
// test/apis/v1/apis/test_update_embedded_array_fields.rb, test_keeps_not_present_keys*).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

const LIMITS = [
  { duration: 5000, limit_by: 'ip', limit: 10 },
  { duration: 10_000, limit_by: 'ip', limit: 20 },
];
const STORED_SETTINGS = {
  required_roles: ['test-role1'],
  headers: [{ key: 'X-Header1', value: 'one' }],
  default_response_headers: [{ key: 'X-Default1', value: 'one' }],
  rate_limit_mode: 'custom',
  rate_limits: LIMITS,
};
const limitsOf = (settings: { rate_limits: { limit: number }[] }) => settings.rate_limits.map((limit) => limit.limit);

describe('a PUT that leaves settings out', () => {
  it("keeps a user's allowed IPs, referers and rate limits it does not name, and changes what it names", async () => {
    const user = { email: 'kept@example.com', first_name: 'Kept', last_name: 'Settings', settings: { allowed_ips: ['127.0.0.1'], allowed_referers: ['http://google.com/'], rate_limit_mode: 'custom', rate_limits: LIMITS } };
    const { id } = (await gw.adminApi('POST', '/users', { user })).body.user;
    const updated = await gw.adminApi('PUT', `/users/${id}`, { user: { use_description: 'Updated', settings: { rate_limit_mode: 'custom' } } });
    expect(updated.status).toBe(200);
    const { settings, use_description } = (await gw.adminApi('GET', `/users/${id}`)).body.user;
    expect([use_description, settings.allowed_ips, settings.allowed_referers, limitsOf(settings)]).toEqual(['Updated', ['127.0.0.1'], ['http://google.com/'], [10, 20]]);
    // A list named is replaced, and null clears it (answered null, as API Umbrella answers an empty one).
    await gw.adminApi('PUT', `/users/${id}`, { user: { settings: { allowed_ips: null, allowed_referers: ['https://example.com/'] } } });
    const changed = (await gw.adminApi('GET', `/users/${id}`)).body.user.settings;
    expect([changed.allowed_ips, changed.allowed_referers, limitsOf(changed)]).toEqual([null, ['https://example.com/'], [10, 20]]);
  });

  it("keeps a backend's settings, and a sub-URL setting's matched by id, that it does not name", async () => {
    const api = {
      name: 'Kept',
      frontend_host: 'localhost',
      backend_host: 'example.com',
      servers: [{ host: '127.0.0.1', port: 9 }],
      url_matches: [{ frontend_prefix: '/kept/', backend_prefix: '/' }],
      settings: STORED_SETTINGS,
      sub_settings: [{ http_method: 'any', regex: '^/sub', settings: STORED_SETTINGS }],
    };
    const { id, sub_settings } = (await gw.adminApi('POST', '/apis', { api })).body.api;
    const partial = { required_roles: ['test-role5'] };
    const response = await gw.adminApi('PUT', `/apis/${id}`, { api: { name: 'Updated', settings: partial, sub_settings: [{ id: sub_settings[0].id, http_method: 'any', regex: '^/sub', settings: partial }] } });
    expect(response.status).toBe(204);
    const read = (await gw.adminApi('GET', `/apis/${id}`)).body.api;
    for (const settings of [read.settings, read.sub_settings[0].settings]) {
      expect(settings.required_roles).toEqual(['test-role5']);
      expect(settings.headers.map((header: { key: string }) => header.key)).toEqual(['X-Header1']);
      expect(settings.default_response_headers.map((header: { key: string }) => header.key)).toEqual(['X-Default1']);
      expect(limitsOf(settings)).toEqual([10, 20]);
    }
  });
});
