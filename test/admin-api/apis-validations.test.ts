// What a backend may hold, as API Umbrella's own tests say
// (test/apis/v1/apis/test_save_embedded_presence.rb,
// test_update_embedded_array_fields.rb, test_save_host_validations.rb,
// test_save_server_validations.rb, test_save_embedded_yaml.rb): on create
// and on update alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, type AdminApiReply } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

let made = 0;
function valid(): Record<string, unknown> {
  made++;
  return {
    name: `Validated ${made}`,
    frontend_host: 'validations.example.com',
    backend_host: 'example.com',
    servers: [{ host: '127.0.0.1', port: 80 }],
    url_matches: [{ frontend_prefix: `/validated-${made}/`, backend_prefix: '/' }],
  };
}

type Action = 'create' | 'update';
const ACTIONS: Action[] = ['create', 'update'];

/** Creates a backend with `overrides`, or updates a valid one with them, sending the whole record as API Umbrella's tests do. */
async function save(action: Action, overrides: Record<string, unknown>): Promise<AdminApiReply & { id: string | null }> {
  if (action === 'create') {
    const reply = await gw.adminApi('POST', '/apis.json', { api: { ...valid(), ...overrides } });
    return { ...reply, id: reply.body?.api?.id ?? null };
  }
  const created = await gw.adminApi('POST', '/apis.json', { api: valid() });
  expect(created.status).toBe(201);
  const reply = await gw.adminApi('PUT', `/apis/${created.body.api.id}.json`, { api: { ...created.body.api, ...overrides } });
  return { ...reply, id: created.body.api.id };
}

async function stored(reply: { id: string | null }): Promise<Record<string, any>> {
  return (await gw.adminApi('GET', `/apis/${reply.id}`)).body.api;
}

describe('servers and url_matches present (test_save_embedded_presence.rb)', () => {
  for (const field of ['servers', 'url_matches']) {
    for (const action of ACTIONS) {
      it(`refuses ${field} null or empty on ${action}, under "base", and keeps what was there`, async () => {
        for (const empty of [null, []]) {
          const reply = await save(action, { [field]: empty });
          expect([reply.status, reply.body], JSON.stringify(empty)).toEqual([422, { errors: { base: [`Must have at least one ${field}`] } }]);
          if (action === 'update') expect((await stored(reply))[field]).toHaveLength(1);
        }
      });
    }
  }

  it('lists both under "base" when both are missing', async () => {
    const reply = await save('create', { servers: [], url_matches: null });
    expect(reply.body.errors).toEqual({ base: ['Must have at least one servers', 'Must have at least one url_matches'] });
  });
});

describe('hosts (test_save_host_validations.rb)', () => {
  for (const action of ACTIONS) {
    it(`takes a compacted or full IPv6 address as every host on ${action}, written as a URL writes it`, async () => {
      for (const address of ['::1', '2001:db8:85a3::8a2e:370:7334']) {
        const reply = await save(action, { frontend_host: address, backend_host: address, servers: [{ host: address, port: 80 }] });
        expect(reply.status, `${address}: ${JSON.stringify(reply.body)}`).toBe(action === 'create' ? 201 : 204);
        expect(await stored(reply)).toMatchObject({ frontend_host: `[${address}]`, backend_host: `[${address}]`, servers: [{ host: `[${address}]`, port: 80 }] });
      }
    });

    it(`takes "*", "*.example.com" and ".example.com" as frontend and backend hosts on ${action}, but not as a server`, async () => {
      for (const host of ['*', '*.example.com', '.example.com']) {
        const reply = await save(action, { frontend_host: host, backend_host: host, servers: [{ host: '127.0.0.1', port: 80 }] });
        expect(reply.status, `${host}: ${JSON.stringify(reply.body)}`).toBe(action === 'create' ? 201 : 204);
        expect(await stored(reply)).toMatchObject({ frontend_host: host, backend_host: host });
      }
      const server = await save(action, { frontend_host: '*', backend_host: '*', servers: [{ host: '*', port: 80 }] });
      expect([server.status, server.body.errors]).toEqual([422, { 'servers[0].host': ['must be in the format of "example.com"'] }]);
    });
  }

  it('refuses the formats API Umbrella refuses, each on its field', async () => {
    const format = ['must be in the format of "example.com"'];
    for (const host of ['http://example.com', 'example.com/', 'example.com/test', '[::g]', 'exam*ple.com', '*example.com', ' example.com']) {
      const hosts = await save('create', { frontend_host: host, backend_host: host });
      expect([hosts.status, hosts.body.errors], host).toEqual([422, { frontend_host: format, backend_host: format }]);
      const server = await save('create', { servers: [{ host, port: 80 }] });
      expect([server.status, server.body.errors], host).toEqual([422, { 'servers[0].host': format }]);
    }
    for (const frontend of ['.', '*.']) expect((await save('create', { frontend_host: frontend })).body.errors, frontend).toEqual({ frontend_host: format });
  });

  it('takes no backend host only with a wildcard frontend host, and a wildcard backend host only with one', async () => {
    expect((await save('create', { frontend_host: '*.example.com', backend_host: null })).status).toBe(201);
    expect((await save('create', { frontend_host: 'example.com', backend_host: null })).body.errors).toEqual({ backend_host: ["can't be blank"] });
    // Nothing would fill the wildcard: the backend would be sent "Host: *.example.net".
    const unfilled = await save('create', { frontend_host: 'example.com', backend_host: '*.example.net' });
    expect([unfilled.status, unfilled.body.errors]).toEqual([422, { backend_host: ['may start with "*" or "." only when the frontend host does'] }]);
  });
});

describe('servers (test_save_server_validations.rb)', () => {
  for (const action of ACTIONS) {
    it(`refuses the same host and port twice in one backend on ${action}, on the second, but not on another port or in another backend`, async () => {
      const twice = await save(action, { servers: [{ host: 'example.com', port: 80 }, { host: 'EXAMPLE.com', port: 80 }] });
      expect([twice.status, twice.body.errors]).toEqual([422, { 'servers[1].host': ['has already been taken'] }]);
      const ports = await save(action, { servers: [{ host: 'example.com', port: 80 }, { host: 'example.com', port: 81 }] });
      expect(ports.status).toBe(action === 'create' ? 201 : 204);
      expect((await save(action, { servers: [{ host: 'example.com', port: 80 }] })).status).toBe(action === 'create' ? 201 : 204);
    });
  }

  it('refuses a host with spaces around it rather than storing it trimmed, and blank, null or invalid ports', async () => {
    expect((await save('create', { servers: [{ host: ' z ', port: 80 }] })).body.errors).toEqual({ 'servers[0].host': ['must be in the format of "example.com"'] });
    expect((await save('create', { servers: [{ host: null, port: 80 }] })).body.errors).toEqual({ 'servers[0].host': ["can't be blank"] });
    for (const port of [null, '', 'zzz']) expect(Object.keys((await save('create', { servers: [{ host: 'z', port }] })).body.errors), String(port)).toEqual(['servers[0].port']);
  });
});

describe('error data as YAML (test_save_embedded_yaml.rb)', () => {
  const settingsOf = async (id: string) => (await gw.adminApi('GET', `/apis/${id}.json`)).body.api.settings;

  for (const action of ACTIONS) {
    it(`takes each error's data as YAML on ${action}, keeping its types, and answers it back as YAML with its keys sorted`, async () => {
      const saved = await save(action, { settings: { error_data_yaml_strings: { api_key_invalid: 'z: 1\nstatus_code: 422\nfoo: bar\ng: true\nb: 2\na: 3' } } });
      expect(saved.status).toBe(action === 'create' ? 201 : 204);
      const settings = await settingsOf(saved.id!);
      expect(settings.error_data).toEqual({ api_key_invalid: { a: 3, b: 2, foo: 'bar', g: true, status_code: 422, z: 1 } });
      expect(settings.error_data_yaml_strings).toEqual({ api_key_invalid: 'a: 3\nb: 2\nfoo: bar\ng: true\nstatus_code: 422\nz: 1' });
    });

    it(`refuses YAML that does not parse, or an error's data that is no mapping, on ${action}`, async () => {
      const broken = await save(action, { settings: { error_data_yaml_strings: { api_key_invalid: 'foo: &', api_key_missing: 'foo: bar\nhello: `world' } } });
      expect(broken.status).toBe(422);
      expect(Object.keys(broken.body.errors).sort()).toEqual(['settings.error_data_yaml_strings.api_key_invalid', 'settings.error_data_yaml_strings.api_key_missing']);
      for (const messages of Object.values(broken.body.errors) as string[][]) expect(messages[0]).toMatch(/^YAML parsing error: /);
      const scalar = await save(action, { settings: { error_data_yaml_strings: { api_key_invalid: 'foo' } } });
      expect([scalar.status, scalar.body.errors]).toEqual([422, { 'settings.error_data.api_key_invalid': ['unexpected type (must be a hash)'] }]);
    });
  }

  it('refuses error_data and error_templates of the wrong type, as API Umbrella does, rather than store them emptied', async () => {
    expect((await save('create', { settings: { error_data: 'x' } })).body.errors).toEqual({ 'settings.error_data': ['unexpected type (must be a hash)'] });
    expect((await save('create', { settings: { error_data: { api_key_invalid: 'foo' } } })).body.errors).toEqual({ 'settings.error_data.api_key_invalid': ['unexpected type (must be a hash)'] });
    expect((await save('create', { settings: { error_templates: 'x' } })).body.errors).toEqual({ 'settings.error_templates': ['unexpected type (must be a hash)'] });
    expect((await save('create', { settings: { error_templates: { json: 5 } } })).body.errors).toEqual({ 'settings.error_templates.json': ['unexpected type (must be a string)'] });
  });
});

describe('sub-URL settings (api_backend_sub_url_settings.lua)', () => {
  it('refuses the same method and regex twice, which could never match, and a regex over 255 characters', async () => {
    const twice = await save('create', { sub_settings: [{ http_method: 'GET', regex: '^/a' }, { http_method: 'POST', regex: '^/a' }, { http_method: 'GET', regex: '^/a' }] });
    expect([twice.status, twice.body.errors]).toEqual([422, { 'sub_settings[2].regex': ['has already been taken'] }]);
    const long = await save('create', { sub_settings: [{ http_method: 'any', regex: `^/${'a'.repeat(254)}` }] });
    expect([long.status, long.body.errors]).toEqual([422, { 'sub_settings[0].regex': ['is too long (maximum is 255 characters)'] }]);
    expect((await save('create', { sub_settings: [{ http_method: 'any', regex: `^/${'a'.repeat(253)}` }] })).status).toBe(201);
  });
});
