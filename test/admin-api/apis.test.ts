import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const validApi = {
  name: 'Example',
  frontend_host: 'api.example.com',
  backend_host: 'example.com',
  servers: [{ host: '127.0.0.1', port: 8081 }],
  url_matches: [{ frontend_prefix: '/example/', backend_prefix: '/' }],
};

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

async function raw(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${gw.url}/api-umbrella/v1${path}`, init);
}

describe('admin API authentication', () => {
  it('answers 401 without a token, with a wrong token, and with only an X-Api-Key', async () => {
    for (const headers of [{}, { 'X-Admin-Auth-Token': 'wrong-token-wrong-token' }, { 'X-Api-Key': 'x'.repeat(40) }]) {
      const response = await raw('/apis', { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 'You need to sign in or sign up before continuing.' });
    }
  });

  it('accepts the token with an X-Api-Key beside it, as API Umbrella clients send', async () => {
    const response = await raw('/apis', { headers: { 'X-Admin-Auth-Token': gw.adminToken, 'X-Api-Key': 'anything-at-all' } });
    expect(response.status).toBe(200);
  });

  it('serves health without a token or key, with or without .json', async () => {
    for (const path of ['/health', '/health.json']) {
      const response = await raw(path);
      expect(response.status, path).toBe(200);
      // Exactly, as API Umbrella answers it: its own `health` command refuses any other type.
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual({ status: 'green' });
    }
  });

  it("checks health's arguments as API Umbrella does: 422 for a status or timeout it does not know", async () => {
    expect((await raw('/health?wait_for_status=green&wait_timeout=5')).status).toBe(200);
    const status = await raw('/health?wait_for_status=purple');
    expect(status.status).toBe(422);
    expect(await status.json()).toEqual({ error: 'Invalid wait_for_status argument (purple)' });
    const timeout = await raw('/health.json?wait_for_status=yellow&wait_timeout=soon');
    expect(timeout.status).toBe(422);
    expect(await timeout.json()).toEqual({ error: 'Invalid wait_timeout argument (soon)' });
  });

  it("serves API Umbrella's state without a token: the published config's version, which a publish moves", async () => {
    const state = async () => (await raw('/state')).json() as Promise<{ file_config_version: number; db_config_version: number | null }>;
    const before = await state();
    expect(before.file_config_version).toBeGreaterThan(0);
    await gw.publishBackend({ ...validApi, name: 'Stateful', url_matches: [{ frontend_prefix: '/stateful/', backend_prefix: '/' }] });
    const after = await state();
    expect(after.db_config_version).toBeGreaterThan(before.db_config_version ?? 0);
    expect(after.file_config_version).toBe(before.file_config_version);
  });

  it('answers malformed JSON with 400 and no row is left behind', async () => {
    const before = (await gw.adminApi('GET', '/apis')).body.recordsTotal;
    const response = await raw('/apis', {
      method: 'POST',
      headers: { 'X-Admin-Auth-Token': gw.adminToken, 'Content-Type': 'application/json' },
      body: '{"api": {"name": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toHaveProperty('error');
    expect((await gw.adminApi('GET', '/apis')).body.recordsTotal).toBe(before);
    const poisoned = await raw('/apis', { method: 'POST', headers: { 'X-Admin-Auth-Token': gw.adminToken, 'Content-Type': 'application/json' }, body: '{"__proto__": {"x": 1}}' });
    expect(poisoned.status).toBe(400);
  });

  it('answers a body that is no object (a JSON array or string, plain text) with 400, not a 422 calling every field blank', async () => {
    const { body } = await gw.adminApi('POST', '/apis', { api: { ...validApi, frontend_host: 'kept.example.com' } });
    for (const [type, sent] of [['application/json', '[1,2]'], ['application/json', '"str"'], ['text/plain', 'hello']] as const) {
      for (const [method, path] of [['POST', '/apis'], ['PUT', `/apis/${body.api.id}`], ['POST', '/admins']] as const) {
        const response = await raw(path, { method, headers: { 'X-Admin-Auth-Token': gw.adminToken, 'Content-Type': type }, body: sent });
        expect([response.status, await response.json()], `${method} ${path} ${sent}`).toEqual([400, { error: 'The request body must be a JSON object or form fields.' }]);
      }
    }
    expect((await gw.adminApi('GET', `/apis/${body.api.id}`)).body.api.frontend_host).toBe('kept.example.com');
  });

  it('takes a JSON content type without a body as no body, as many client libraries send one on every call', async () => {
    const { body } = await gw.adminApi('POST', '/apis', { api: { ...validApi, frontend_host: 'empty-body.example.com' } });
    const json = { 'X-Admin-Auth-Token': gw.adminToken, 'Content-Type': 'application/json' };
    expect((await raw(`/apis/${body.api.id}`, { method: 'DELETE', headers: json })).status).toBe(204);
    expect((await raw('/config/publish', { method: 'POST', headers: json, body: ' ' })).status).toBe(201);
  });
});

describe("form-encoded bodies, as API Umbrella's Rails admin takes them", () => {
  const postForm = (path: string, fields: Record<string, string>, method = 'POST') =>
    raw(path, { method, headers: { 'X-Admin-Auth-Token': gw.adminToken, 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

  it('create, update and publish a backend from bracketed fields', async () => {
    const created = await postForm('/apis', {
      'api[name]': 'From a form',
      'api[frontend_host]': 'form.example.com',
      'api[backend_host]': 'example.com',
      'api[servers][0][host]': '127.0.0.1',
      'api[servers][0][port]': '8081',
      'api[url_matches][0][frontend_prefix]': '/form/',
      'api[url_matches][0][backend_prefix]': '/',
      'api[settings][required_roles]': 'reader, writer',
      'api[settings][disable_api_key]': 'true',
      'api[rewrites][0][matcher_type]': 'regex',
      'api[rewrites][0][http_method]': 'any',
      'api[rewrites][0][frontend_matcher]': 'a',
      'api[rewrites][0][backend_replacement]': 'b',
    });
    expect(created.status).toBe(201);
    const { api } = (await created.json()) as { api: Record<string, any> };
    expect(api).toMatchObject({
      name: 'From a form',
      servers: [{ host: '127.0.0.1', port: 8081 }],
      url_matches: [{ frontend_prefix: '/form/', backend_prefix: '/' }],
      settings: { required_roles: ['reader', 'writer'], disable_api_key: true },
      rewrites: [{ matcher_type: 'regex', http_method: 'any', frontend_matcher: 'a', backend_replacement: 'b' }],
    });

    expect((await postForm(`/apis/${api.id}`, { 'api[name]': 'Renamed by a form' }, 'PUT')).status).toBe(204);
    expect((await gw.adminApi('GET', `/apis/${api.id}`)).body.api.name).toBe('Renamed by a form');

    const published = await postForm('/config/publish', { [`config[apis][${api.id}][publish]`]: '1' });
    expect(published.status).toBe(201);
    expect(gw.context.publisher.current.apis.map((live) => live.id)).toContain(api.id);
  });

  it('read numbered rows and repeated name[] fields as lists, as the same JSON would be', async () => {
    const body = new URLSearchParams({
      'api[name]': 'Lists from a form',
      'api[frontend_host]': 'form-lists.example.com',
      'api[backend_host]': 'example.com',
      'api[servers][0][host]': '127.0.0.1',
      'api[servers][0][port]': '8081',
      'api[url_matches][0][frontend_prefix]': '/lists/',
      'api[url_matches][0][backend_prefix]': '/',
      'api[settings][required_roles][0]': 'reader',
      'api[settings][required_roles][1]': 'writer',
      'api[settings][headers][0][key]': 'X-A',
      'api[settings][headers][0][value]': 'b',
      'api[settings][rate_limit_mode]': 'custom',
      'api[settings][rate_limits][0][duration]': '60000',
      'api[settings][rate_limits][0][limit_by]': 'ip',
      'api[settings][rate_limits][0][limit]': '10',
      'api[settings][rate_limits][0][response_headers]': 'true',
    });
    body.append('api[settings][allowed_ips][]', '10.0.0.0/8');
    body.append('api[settings][allowed_ips][]', '192.0.2.1');
    const created = await raw('/apis', { method: 'POST', headers: { 'X-Admin-Auth-Token': gw.adminToken, 'Content-Type': 'application/x-www-form-urlencoded' }, body: body.toString() });
    expect(created.status).toBe(201);
    const { api } = (await created.json()) as { api: Record<string, any> };
    expect(api.settings).toMatchObject({
      required_roles: ['reader', 'writer'],
      allowed_ips: ['10.0.0.0/8', '192.0.2.1'],
      headers: [{ key: 'X-A', value: 'b' }],
      rate_limits: [{ duration: 60000, limit_by: 'ip', limit: 10, response_headers: true }],
    });
  });

  it('answer a form that fails validation with the same 422 as JSON', async () => {
    const response = await postForm('/apis', { 'api[name]': 'Incomplete', 'api[servers][0][port]': 'eighty' });
    expect(response.status).toBe(422);
    const { errors } = (await response.json()) as { errors: Record<string, string[]> };
    expect(errors['servers[0].port']).toEqual(['must be a port number from 1 to 65535']);
    expect(errors.frontend_host).toEqual(["can't be blank"]);
  });
});

describe('/apis', () => {
  it('creates (201, wrapped or bare), reads, updates (204) and deletes (204) a backend', async () => {
    const created = await gw.adminApi('POST', '/apis', { api: validApi });
    expect(created.status).toBe(201);
    const id = created.body.api.id as string;
    expect(created.body.api).toMatchObject({ ...validApi, backend_protocol: 'http', balance_algorithm: 'least_conn', sub_settings: [] });

    const bare = await gw.adminApi('POST', '/apis', { ...validApi, frontend_host: 'bare.example.com' });
    expect(bare.status).toBe(201);

    expect((await gw.adminApi('GET', `/apis/${id}`)).body.api.name).toBe('Example');
    expect((await gw.adminApi('GET', `/apis/${id}.json`)).status).toBe(200);

    const updated = await gw.adminApi('PUT', `/apis/${id}`, { api: { ...validApi, name: 'Renamed' } });
    expect(updated.status).toBe(204);
    expect((await gw.adminApi('GET', `/apis/${id}`)).body.api.name).toBe('Renamed');

    // As in API Umbrella, a PUT changes the fields it names and keeps the others.
    const settings = { rate_limit_mode: 'unlimited', required_roles: ['ops'] };
    expect((await gw.adminApi('PUT', `/apis/${id}`, { api: { settings } })).status).toBe(204);
    const partial = await gw.adminApi('PUT', `/apis/${id}`, { api: { name: 'Only the name' } });
    expect(partial.status).toBe(204);
    const afterPartial = (await gw.adminApi('GET', `/apis/${id}`)).body.api;
    expect(afterPartial).toMatchObject({ ...validApi, name: 'Only the name', settings });
    expect((await gw.adminApi('PUT', `/apis/${id}`, { api: { servers: [] } })).status).toBe(422);

    const list = await gw.adminApi('GET', '/apis.json');
    expect(list.body.data.map((api: { id: string }) => api.id)).toContain(id);

    expect((await gw.adminApi('DELETE', `/apis/${id}`)).status).toBe(204);
    expect((await gw.adminApi('GET', `/apis/${id}`)).status).toBe(404);
  });

  it('pages and searches the list as DataTables asks, returning every backend when no length is given', async () => {
    const names = ['Paging Alpha', 'Paging Beta', 'Paging Gamma'];
    for (const [index, name] of names.entries()) {
      const api = { ...validApi, name, frontend_host: `paging-${index}.example.com`, servers: [{ host: `paging-server-${index}.internal`, port: 80 }] };
      expect((await gw.adminApi('POST', '/apis', { api })).status).toBe(201);
    }
    const all = await gw.adminApi('GET', '/apis.json');
    expect(all.body.data).toHaveLength(all.body.recordsTotal);

    const found = await gw.adminApi('GET', '/apis.json?draw=3&search%5Bvalue%5D=PAGING');
    expect(found.body).toMatchObject({ draw: 3, recordsTotal: 3, recordsFiltered: 3 });
    expect(found.body.data.map((api: { name: string }) => api.name)).toEqual(names);
    expect((await gw.adminApi('GET', '/apis?search=paging-server-2')).body.data.map((api: { name: string }) => api.name)).toEqual(['Paging Gamma']);
    expect((await gw.adminApi('GET', '/apis?search=no-such-backend-anywhere')).body).toMatchObject({ recordsTotal: 0, data: [] });

    const first = await gw.adminApi('GET', '/apis?search=paging&start=0&length=2');
    const second = await gw.adminApi('GET', '/apis?search=paging&start=2&length=2');
    expect(first.body.recordsTotal).toBe(3);
    expect(first.body.data.map((api: { name: string }) => api.name)).toEqual(['Paging Alpha', 'Paging Beta']);
    expect(second.body.data.map((api: { name: string }) => api.name)).toEqual(['Paging Gamma']);
  });

  it('answers 404 for unknown ids on read, update and delete', async () => {
    expect((await gw.adminApi('GET', '/apis/nope')).status).toBe(404);
    expect((await gw.adminApi('PUT', '/apis/nope', { api: validApi })).status).toBe(404);
    expect((await gw.adminApi('DELETE', '/apis/nope')).status).toBe(404);
  });

  it("answers 422 with API Umbrella's messages and stores nothing", async () => {
    const before = (await gw.adminApi('GET', '/apis')).body.recordsTotal;
    const response = await gw.adminApi('POST', '/apis', {
      api: { name: '', frontend_host: 'example.com', servers: [], url_matches: [{ frontend_prefix: 'nope', backend_prefix: '/' }] },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      name: ["can't be blank"],
      backend_host: ["can't be blank"],
      base: ['Must have at least one servers'],
      'url_matches[0].frontend_prefix': ['must start with "/"'],
    });
    expect((await gw.adminApi('GET', '/apis')).body.recordsTotal).toBe(before);
  });

  it("checks hosts as API Umbrella does: a bare IPv6 backend host or server is taken (and written as a URL writes it), a port out of range or in a server's host is not", async () => {
    const save = (overrides: object) => gw.adminApi('POST', '/apis', { api: { ...validApi, frontend_host: `hosts-${Math.random().toString(36).slice(2)}.example.com`, ...overrides } });
    const ipv6 = await save({ backend_host: '::1', servers: [{ host: '2001:db8:85a3::8a2e:370:7334', port: 80 }] });
    expect([ipv6.status, ipv6.body.api?.backend_host, ipv6.body.api?.servers[0].host]).toEqual([201, '[::1]', '[2001:db8:85a3::8a2e:370:7334]']);
    const format = ['must be in the format of "example.com"'];
    expect((await save({ frontend_host: 'api.example.com:99999' })).body.errors).toEqual({ frontend_host: format });
    expect((await save({ frontend_host: 'api.example.com:0', backend_host: 'example.com:65536' })).body.errors).toEqual({ frontend_host: format, backend_host: format });
    expect((await save({ servers: [{ host: 'example.com:8080', port: 80 }] })).body.errors).toEqual({ 'servers[0].host': format });
    expect((await save({ frontend_host: 'ports.example.com:8443', backend_host: 'example.com:65535' })).status).toBe(201);
  });

  it('requires at least one url_matches and valid server ports', async () => {
    const response = await gw.adminApi('POST', '/apis', { api: { ...validApi, url_matches: [], servers: [{ host: 'x.com', port: 'abc' }] } });
    expect(response.status).toBe(422);
    expect(response.body.errors.base).toEqual(['Must have at least one url_matches']);
    expect(response.body.errors['servers[0].port']).toEqual(['must be a port number from 1 to 65535']);
  });

  it('refuses an append_query_string or http_basic_auth that no request line or header could carry', async () => {
    for (const appended of ['a=1 2', 'a=1#x', 'a=\u00e9', 'a=1\nb=2']) {
      const response = await gw.adminApi('POST', '/apis', { api: { ...validApi, settings: { append_query_string: appended } } });
      expect(response.status, appended).toBe(422);
      expect(response.body.errors['settings.append_query_string']).toEqual(['must be a query string such as a=1&b=2: printable ASCII, without spaces or #']);
    }
    const auth = await gw.adminApi('POST', '/apis', { api: { ...validApi, settings: { http_basic_auth: 'user:pa\r\nss' } } });
    expect(auth.body.errors['settings.http_basic_auth']).toEqual(['must not contain control characters']);
    const fine = { append_query_string: '?a=1&b=%20x', http_basic_auth: 'user:p ss' };
    expect((await gw.adminApi('POST', '/apis', { api: { ...validApi, frontend_host: 'query.example.com', settings: fine } })).status).toBe(201);
  });

  it("refuses prefixes under the gateway's own paths", async () => {
    for (const prefix of ['/admin', '/admin/', '/admins/x', '/signup/', '/contact/', '/api-umbrella/v1/', '/assets/app.css']) {
      const response = await gw.adminApi('POST', '/apis', { api: { ...validApi, url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }] } });
      expect(response.status, prefix).toBe(422);
      expect(response.body.errors['url_matches[0].frontend_prefix']).toEqual(['is reserved for the gateway itself']);
    }
    const allowed = await gw.adminApi('POST', '/apis', { api: { ...validApi, frontend_host: 'other.example.com', url_matches: [{ frontend_prefix: '/api/', backend_prefix: '/' }] } });
    expect(allowed.status).toBe(201);
  });

  it('takes a frontend prefix another backend uses on the same host, as API Umbrella does (see apis-order.test.ts)', async () => {
    const api = { ...validApi, frontend_host: 'unique.example.com', url_matches: [{ frontend_prefix: '/taken/', backend_prefix: '/' }] };
    expect((await gw.adminApi('POST', '/apis', { api })).status).toBe(201);
    expect((await gw.adminApi('POST', '/apis', { api })).status).toBe(201);
  });

  it('refuses two rate limits counting the same window (limit_by and duration), as API Umbrella does, and takes its "apiKey" spelling', async () => {
    const withLimits = (rate_limits: object[]) =>
      gw.adminApi('POST', '/apis', { api: { ...validApi, frontend_host: `limits-${rate_limits.length}.example.com`, settings: { rate_limit_mode: 'custom', rate_limits } } });
    const same = await withLimits([
      { duration: 5000, limit_by: 'ip', limit: 10 },
      { duration: 60000, limit_by: 'ip', limit: 10 },
      { duration: 5000, limit_by: 'ip', limit: 20 },
    ]);
    expect([same.status, same.body.errors]).toEqual([422, { 'settings.rate_limits[2].duration': ['has already been taken'] }]);
    const created = await withLimits([
      { duration: 5000, limit_by: 'ip', limit: 10 },
      { duration: 5000, limit_by: 'apiKey', limit: 20 },
    ]);
    expect(created.status).toBe(201);
    expect(created.body.api.settings.rate_limits.map((limit: { limit_by: string }) => limit.limit_by)).toEqual(['ip', 'api_key']);
  });

  it('stores every settings field, even those a later feature acts on', async () => {
    const settings = {
      append_query_string: 'a=1&b=2',
      headers: [{ key: 'X-Extra', value: 'yes' }],
      http_basic_auth: 'user:pass',
      disable_api_key: true,
      required_roles: ['alpha', 'beta'],
      required_roles_override: true,
      rate_limit_mode: 'custom',
      rate_limits: [{ duration: 60000, limit_by: 'api_key', limit: 10, response_headers: true }],
      rate_limit_bucket_name: 'shared',
      disable_analytics: true,
    };
    const created = await gw.adminApi('POST', '/apis', {
      api: {
        ...validApi,
        frontend_host: 'settings.example.com',
        settings,
        sub_settings: [{ http_method: 'post', regex: '^/write', settings: { required_roles: ['writer'] } }],
      },
    });
    expect(created.status).toBe(201);
    const read = (await gw.adminApi('GET', `/apis/${created.body.api.id}`)).body.api;
    expect(read.settings).toMatchObject(settings);
    expect(read.sub_settings).toEqual([{ id: expect.any(String), http_method: 'POST', regex: '^/write', settings: expect.objectContaining({ required_roles: ['writer'] }) }]);
  });

  it("answers each settings' headers also as API Umbrella's text, and takes a changed text back over the list sent beside it", async () => {
    const created = await gw.adminApi('POST', '/apis', {
      api: {
        ...validApi,
        frontend_host: 'header-text.example.com',
        settings: { headers_string: '  X-Add1:test1\n\nX-Add2:   a:b  ', default_response_headers: [{ key: 'X-Default', value: 'yes' }] },
        sub_settings: [{ http_method: 'GET', regex: '^/sub', settings: { override_response_headers_string: 'X-Over: 1' } }],
      },
    });
    expect(created.status).toBe(201);
    const texts = { headers_string: 'X-Add1: test1\nX-Add2: a:b', default_response_headers_string: 'X-Default: yes', override_response_headers_string: '' };
    expect(created.body.api.settings).toMatchObject(texts);
    const id = created.body.api.id as string;
    const read = (await gw.adminApi('GET', `/apis/${id}`)).body.api;
    expect(read.settings).toMatchObject({ ...texts, headers: [{ key: 'X-Add1', value: 'test1' }, { key: 'X-Add2', value: 'a:b' }] });
    expect(read.sub_settings[0].settings).toMatchObject({ headers_string: '', default_response_headers_string: '', override_response_headers_string: 'X-Over: 1' });
    const listed = (await gw.adminApi('GET', '/apis?search=header-text.example.com')).body.data;
    expect(listed.map((api: { settings: object }) => api.settings)).toEqual([read.settings]);

    // What a script read, sent back with the text changed: the text wins over the list beside it, as in API Umbrella.
    expect((await gw.adminApi('PUT', `/apis/${id}`, { api: { ...read, settings: { ...read.settings, headers_string: 'X-Changed: 1' } } })).status).toBe(204);
    expect((await gw.adminApi('GET', `/apis/${id}`)).body.api.settings).toMatchObject({ headers: [{ key: 'X-Changed', value: '1' }], headers_string: 'X-Changed: 1' });
  });

  it('rejects an invalid sub-setting regex and an unknown method', async () => {
    const response = await gw.adminApi('POST', '/apis', {
      api: { ...validApi, frontend_host: 'regex.example.com', sub_settings: [{ http_method: 'FETCH', regex: '(' }] },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      'sub_settings[0].http_method': ['is not included in the list'],
      'sub_settings[0].regex': ['is not a valid regular expression'],
    });
  });

  it('stores URL rewrites in order, with the method normalized as sub-settings store it', async () => {
    const rewrites = [
      { matcher_type: 'route', http_method: 'get', frontend_matcher: '/info/:id', backend_replacement: '/items?id={{id}}' },
      { matcher_type: 'regex', http_method: 'any', frontend_matcher: 'state=([A-Z]+)', backend_replacement: 'region=US-$1' },
    ];
    const created = await gw.adminApi('POST', '/apis', { api: { ...validApi, frontend_host: 'rewrites.example.com', rewrites } });
    expect(created.status).toBe(201);
    const read = (await gw.adminApi('GET', `/apis/${created.body.api.id}`)).body.api;
    expect(read.rewrites).toEqual([{ ...rewrites[0], id: expect.any(String), http_method: 'GET' }, { ...rewrites[1], id: expect.any(String) }]);
  });

  it('refuses PCRE-only regex syntax that JavaScript would read as something else', async () => {
    const response = await gw.adminApi('POST', '/apis', {
      api: {
        ...validApi,
        frontend_host: 'pcre.example.com',
        sub_settings: [{ http_method: 'any', regex: '^/x/\\d+\\z' }],
        rewrites: [{ matcher_type: 'regex', http_method: 'any', frontend_matcher: '[[:digit:]]+', backend_replacement: 'n' }],
      },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      'sub_settings[0].regex': ['uses \\z, which JavaScript reads as a plain "z" (use $)'],
      'rewrites[0].frontend_matcher': ['uses a POSIX class such as [[:digit:]], which JavaScript does not know (use \\d, \\w, \\s or a range)'],
    });
  });

  it('refuses URL rewrites the gateway could not apply, naming the field and the reason', async () => {
    const response = await gw.adminApi('POST', '/apis', {
      api: {
        ...validApi,
        frontend_host: 'bad-rewrites.example.com',
        rewrites: [
          { matcher_type: 'glob', http_method: 'any', frontend_matcher: '/a', backend_replacement: '/b' },
          { matcher_type: 'regex', http_method: 'FETCH', frontend_matcher: '(', backend_replacement: '/b' },
          { matcher_type: 'route', http_method: 'any', frontend_matcher: '/:id/:id', backend_replacement: '/b' },
          { matcher_type: 'route', http_method: 'any', frontend_matcher: '/:id', backend_replacement: '/b/{{#id}}' },
          { matcher_type: 'route', http_method: 'any', frontend_matcher: ' ', backend_replacement: '' },
        ],
      },
    });
    expect(response.status).toBe(422);
    const errors = response.body.errors as Record<string, string[]>;
    expect(errors['rewrites[0].matcher_type']).toEqual(['is not included in the list']);
    expect(errors['rewrites[1].http_method']).toEqual(['is not included in the list']);
    expect(errors['rewrites[1].frontend_matcher']![0]).toMatch(/^is not a valid regular expression \(.+\)$/);
    expect(errors['rewrites[2].frontend_matcher']![0]).toMatch(/^is not a valid route pattern \(.*duplicate.*\)$/i);
    expect(errors['rewrites[3].backend_replacement']![0]).toMatch(/^is not a valid template \(.*unclosed.*\)$/i);
    expect(errors['rewrites[4].frontend_matcher']).toEqual(["can't be blank"]);
    expect(errors['rewrites[4].backend_replacement']).toEqual(["can't be blank"]);
    expect(Object.keys(errors)).toHaveLength(7);
  });

  it('stores api_key_verification_level and the transition starts as given, in UTC; publishing fills or clears them', async () => {
    const saved = await gw.adminApi('POST', '/apis', {
      api: {
        ...validApi,
        frontend_host: 'verified.example.com',
        settings: { api_key_verification_level: 'required_email', require_https: 'transition_return_error' },
        sub_settings: [
          { http_method: 'any', regex: '^/then', settings: { api_key_verification_level: 'transition_email', api_key_verification_transition_start_at: '2013-02-01T02:27:00+01:00' } },
        ],
      },
    });
    expect(saved.status).toBe(201);
    const { settings, sub_settings: subs } = saved.body.api;
    expect(settings).toMatchObject({ api_key_verification_level: 'required_email', api_key_verification_transition_start_at: null, require_https: 'transition_return_error', require_https_transition_start_at: null });
    expect(subs[0].settings.api_key_verification_transition_start_at).toBe('2013-02-01T01:27:00.000Z');
  });

  it("reads transition starts as API Umbrella's older exports write them: {\"$date\": …} and milliseconds", async () => {
    const saved = await gw.adminApi('POST', '/apis', {
      api: {
        ...validApi,
        frontend_host: 'dates.example.com',
        settings: { api_key_verification_transition_start_at: { $date: 1359682020000 }, require_https_transition_start_at: { $date: '2013-02-01T01:27:00Z' } },
        sub_settings: [
          { http_method: 'any', regex: '^/a', settings: { api_key_verification_transition_start_at: 1359682020000, require_https_transition_start_at: '1359682020000' } },
          { http_method: 'any', regex: '^/b', settings: { api_key_verification_transition_start_at: { $date: { $numberLong: '1359682020000' } }, require_https_transition_start_at: '2013-02-01T01:27:00.000000+0000' } },
        ],
      },
    });
    expect(saved.status).toBe(201);
    const starts = [saved.body.api.settings, ...saved.body.api.sub_settings.map((sub: { settings: unknown }) => sub.settings)].flatMap((settings) => [
      settings.api_key_verification_transition_start_at,
      settings.require_https_transition_start_at,
    ]);
    expect(starts).toEqual(Array(6).fill('2013-02-01T01:27:00.000Z'));
  });

  it('refuses an unknown api_key_verification_level and transition starts that are not dates', async () => {
    const refused = await gw.adminApi('POST', '/apis', {
      api: {
        ...validApi,
        frontend_host: 'verified.example.com',
        settings: {
          api_key_verification_level: 'required_phone',
          anonymous_rate_limit_behavior: ['ip_only'],
          require_https_transition_start_at: { $date: 'soon' },
          // A date typed without its dashes, not milliseconds of 1970.
          api_key_verification_transition_start_at: '20261201',
        },
        sub_settings: [{ http_method: 'any', regex: '^/', settings: { api_key_verification_level: 3, api_key_verification_transition_start_at: 'next Tuesday', require_https_transition_start_at: '2026-02-30T00:00:00Z' } }],
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({
      'settings.api_key_verification_level': ['is not included in the list'],
      'settings.anonymous_rate_limit_behavior': ['is not included in the list'],
      'settings.require_https_transition_start_at': ['must be a date and time such as 2026-01-31T00:00:00Z'],
      'settings.api_key_verification_transition_start_at': ['must be a date and time such as 2026-01-31T00:00:00Z'],
      'sub_settings[0].settings.api_key_verification_level': ['is not included in the list'],
      'sub_settings[0].settings.api_key_verification_transition_start_at': ['must be a date and time such as 2026-01-31T00:00:00Z'],
      'sub_settings[0].settings.require_https_transition_start_at': ['must be a date and time such as 2026-01-31T00:00:00Z'],
    });
  });
});

// A value of the wrong type is refused on its field, never read as empty: read so, a PUT would
// clear a backend's roles or allowlist with a 204, and open the API to every key once published.
describe('a settings or field value of the wrong type', () => {
  const stored = { backend_protocol: 'https', settings: { required_roles: ['r1'], allowed_ips: ['10.0.0.0/8'], append_query_string: 'a=1', disable_api_key: true } };
  async function createTyped(host: string): Promise<string> {
    const created = await gw.adminApi('POST', '/apis', { api: { ...validApi, frontend_host: host, ...stored } });
    expect(created.status).toBe(201);
    return created.body.api.id as string;
  }
  const read = async (id: string) => (await gw.adminApi('GET', `/apis/${id}`)).body.api;

  it('is refused 422 on that field, and the stored backend is kept', async () => {
    const id = await createTyped('typed.example.com');
    const refusals: [Record<string, unknown>, string][] = [
      [{ settings: { required_roles: 12345 } }, 'settings.required_roles'],
      [{ settings: { required_roles: true } }, 'settings.required_roles'],
      [{ settings: { required_roles: { role: 'r9' } } }, 'settings.required_roles'],
      [{ settings: { required_roles: ['r7', 5] } }, 'settings.required_roles[1]'],
      [{ settings: { allowed_ips: 12345 } }, 'settings.allowed_ips'],
      [{ settings: { allowed_referers: { x: 1 } } }, 'settings.allowed_referers'],
      [{ backend_protocol: 12345 }, 'backend_protocol'],
      [{ backend_protocol: { x: 1 } }, 'backend_protocol'],
      [{ balance_algorithm: ['round_robin'] }, 'balance_algorithm'],
      [{ settings: { append_query_string: { x: 1 } } }, 'settings.append_query_string'],
      [{ settings: { append_query_string: 12345 } }, 'settings.append_query_string'],
      [{ settings: { http_basic_auth: 12345 } }, 'settings.http_basic_auth'],
      [{ settings: { rate_limit_bucket_name: ['shared'] } }, 'settings.rate_limit_bucket_name'],
      [{ settings: { disable_api_key: 12345 } }, 'settings.disable_api_key'],
      [{ settings: { disable_api_key: 'no' } }, 'settings.disable_api_key'],
      [{ settings: { pass_api_key_header: { x: 1 } } }, 'settings.pass_api_key_header'],
      [{ settings: { disable_analytics: [true] } }, 'settings.disable_analytics'],
      [{ settings: { headers: 12345 } }, 'settings.headers'],
      [{ settings: { headers_string: 12345 } }, 'settings.headers_string'],
      [{ name: { a: 'b' } }, 'name'],
      [{ settings: { rate_limit_mode: 12345 } }, 'settings.rate_limit_mode'],
      [{ settings: { rate_limit_mode: 'custom', rate_limits: [{ duration: 1000, limit_by: 'ip', limit: 5, response_headers: 'perhaps' }] } }, 'settings.rate_limits[0].response_headers'],
      // Names and hosts go into pages, cookies and mail: API Umbrella's column width, a DNS name's length.
      [{ name: 'n'.repeat(256) }, 'name'],
      [{ frontend_host: `${'h'.repeat(300)}.example.com` }, 'frontend_host'],
      [{ servers: [{ host: `${'s'.repeat(300)}.internal`, port: 80 }] }, 'servers[0].host'],
    ];
    for (const [change, field] of refusals) {
      const refused = await gw.adminApi('PUT', `/apis/${id}`, { api: change });
      expect([refused.status, Object.keys(refused.body?.errors ?? {})], JSON.stringify(change)).toEqual([422, [field]]);
    }
    expect((await gw.adminApi('POST', '/apis', { api: { ...validApi, frontend_host: 'typed-new.example.com', settings: { required_roles: 12345 } } })).status).toBe(422);
    expect(await read(id)).toMatchObject({ name: validApi.name, ...stored });
  });

  it('says what is wrong: not text, not a list of text, not in the list, not true or false', async () => {
    const id = await createTyped('typed-messages.example.com');
    const errors = async (change: Record<string, unknown>) => (await gw.adminApi('PUT', `/apis/${id}`, { api: change })).body.errors;
    expect(await errors({ name: { a: 'b' } })).toEqual({ name: ['must be text'] });
    expect(await errors({ backend_protocol: 12345 })).toEqual({ backend_protocol: ['is not included in the list'] });
    expect(await errors({ settings: { required_roles: 12345 } })).toEqual({ 'settings.required_roles': ['must be a list of text values'] });
    expect(await errors({ settings: { required_roles: ['r7', 5] } })).toEqual({ 'settings.required_roles[1]': ['must be text'] });
    expect(await errors({ settings: { disable_api_key: 12345 } })).toEqual({ 'settings.disable_api_key': ['must be true or false'] });
  });

  it('takes lists as form rows ({"0": …}) and comma-separated text, and every spelling of true and false it took before', async () => {
    const id = await createTyped('typed-rows.example.com');
    const put = async (settings: Record<string, unknown>) => expect((await gw.adminApi('PUT', `/apis/${id}`, { api: { settings } })).status, JSON.stringify(settings)).toBe(204);
    await put({ required_roles: { 0: 'r9', 1: 'r8' }, allowed_ips: { 0: '10.1.1.1' } });
    expect((await read(id)).settings).toMatchObject({ required_roles: ['r9', 'r8'], allowed_ips: ['10.1.1.1'] });
    await put({ required_roles: 'r5, r6' });
    expect((await read(id)).settings.required_roles).toEqual(['r5', 'r6']);
    for (const [sent, value] of [[false, false], ['1', true], ['off', false], [1, true], ['true', true], ['', null], [null, null]] as const) {
      await put({ disable_api_key: sent });
      expect((await read(id)).settings.disable_api_key, JSON.stringify(sent)).toBe(value);
    }
    // Null, blank or absent: the default, as before.
    expect((await gw.adminApi('PUT', `/apis/${id}`, { api: { backend_protocol: null } })).status).toBe(204);
    expect((await read(id)).backend_protocol).toBe('http');
  });

  it('refuses a move_after_id that is no id (an object, a list, a boolean), and does not move the backend', async () => {
    const first = await createTyped('typed-order-1.example.com');
    const second = await createTyped('typed-order-2.example.com');
    const order = async () => (await gw.adminApi('GET', '/apis')).body.data.map((api: { id: string }) => api.id).filter((listed: string) => listed === first || listed === second);
    const before = await order();
    for (const sent of [{}, [first], true, false]) {
      const refused = await gw.adminApi('PUT', `/apis/${before[1]}/move_after`, { move_after_id: sent });
      expect([refused.status, refused.body], JSON.stringify(sent)).toEqual([422, { errors: { move_after_id: ['must be the id of an API backend, or null'] } }]);
    }
    expect(await order()).toEqual(before);
  });
});
