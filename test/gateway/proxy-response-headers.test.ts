// A backend's default_response_headers and override_response_headers, as
// API Umbrella's response_rewriting tests check them.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { echoBackend, open, rewriteStoredDocuments, send, startProxyFixture, type ProxyFixture } from './support.js';

const BODY = 'x'.repeat(2000);
const upstream: CustomHandler = (request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/plain', 'X-Existing1': 'existing1', 'x-existing2': 'existing2', 'X-EXISTING3': 'existing3', 'Content-Length': String(BODY.length) });
  response.end(BODY);
  return request.url !== undefined;
};

const HEADERS = [
  { key: 'X-Add1', value: 'test1' },
  { key: 'X-Add2', value: 'test2' },
  { key: 'X-Existing1', value: 'test3' },
  { key: 'X-EXISTING2', value: 'test4' },
  { key: 'x-existing3', value: 'test5' },
];

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ upstream });
  await fx.gw.publishBackend(
    echoBackend(fx.echo, {
      url_matches: [{ frontend_prefix: '/default/', backend_prefix: '/' }],
      settings: { default_response_headers: HEADERS },
      sub_settings: [{ http_method: 'any', regex: '^/sub/', settings: { default_response_headers: [{ key: 'X-Add2', value: 'overridden' }] } }],
    }),
  );
  await fx.gw.publishBackend(
    echoBackend(fx.echo, {
      url_matches: [{ frontend_prefix: '/override/', backend_prefix: '/' }],
      settings: { override_response_headers: HEADERS },
      sub_settings: [{ http_method: 'any', regex: '^/sub/', settings: { override_response_headers: [{ key: 'X-Existing3', value: 'overridden' }] } }],
    }),
  );
  await fx.gw.publishBackend(
    echoBackend(fx.echo, {
      url_matches: [{ frontend_prefix: '/owned/', backend_prefix: '/' }],
      settings: {
        override_response_headers_string: 'Content-Length: 1\nContent-Encoding: br\nTransfer-Encoding: chunked\nX-Api-Umbrella-Request-Id: forged\nContent-Type: image/png',
      },
    }),
  );
});
afterAll(() => fx.close());

const get = (path: string, headers: Record<string, string> = {}) => send(fx.gw.url, path, { headers: { 'X-Api-Key': fx.apiKey, ...headers } });

describe('default_response_headers', () => {
  it('adds headers the upstream did not send and leaves its own, whatever their case', async () => {
    const reply = await get('/default/headers/');
    expect(reply.headers).toMatchObject({ 'x-add1': 'test1', 'x-add2': 'test2', 'x-existing1': 'existing1', 'x-existing2': 'existing2', 'x-existing3': 'existing3' });
  });

  it("takes a sub-setting's list instead of the backend's", async () => {
    const reply = await get('/default/sub/');
    expect(reply.headers['x-add1']).toBeUndefined();
    expect(reply.headers).toMatchObject({ 'x-add2': 'overridden', 'x-existing1': 'existing1', 'x-existing3': 'existing3' });
  });
});

describe('override_response_headers', () => {
  it("replaces the upstream's headers of the same name, whatever their case, and adds the others", async () => {
    const reply = await get('/override/headers/');
    expect(reply.headers).toMatchObject({ 'x-add1': 'test1', 'x-add2': 'test2', 'x-existing1': 'test3', 'x-existing2': 'test4', 'x-existing3': 'test5' });
  });

  it("takes a sub-setting's list instead of the backend's", async () => {
    const reply = await get('/override/sub/');
    expect(reply.headers['x-add1']).toBeUndefined();
    expect(reply.headers['x-add2']).toBeUndefined();
    expect(reply.headers).toMatchObject({ 'x-existing1': 'existing1', 'x-existing2': 'existing2', 'x-existing3': 'overridden' });
  });

  it('cannot set the framing, the coding or the request id, and compression follows the type the client gets', async () => {
    const response = await open(fx.gw.url, '/owned/x', { headers: { 'X-Api-Key': fx.apiKey, 'Accept-Encoding': 'gzip' } });
    const body = Buffer.from(await response.body.arrayBuffer());
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.headers['content-length']).toBe(String(BODY.length));
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers['x-api-umbrella-request-id']).not.toBe('forged');
    expect(body.toString()).toBe(BODY);
    const text = await open(fx.gw.url, '/default/x', { headers: { 'X-Api-Key': fx.apiKey, 'Accept-Encoding': 'gzip' } });
    expect(text.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(await text.body.arrayBuffer())).toString()).toBe(BODY);
  });
});

describe('stored backends from before these settings', () => {
  it('serve, compare and publish as backends without them', async () => {
    const id = await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/old/', backend_prefix: '/' }] }));
    // A document written by an earlier Parasol: no response header settings in it, published or draft.
    const strip = (document: string) =>
      document.replaceAll(/"(default|override)_response_headers":\[\],?/g, '').replaceAll(',}', '}');
    const draft = rewriteStoredDocuments(fx.gw, id, strip);
    expect(strip(draft)).not.toContain('response_headers');

    const pending = await fx.gw.adminApi('GET', '/config/pending_changes');
    expect(pending.body.config.apis.modified).toEqual([]);
    const read = await fx.gw.adminApi('GET', `/apis/${id}`);
    expect(read.body.api.settings.default_response_headers).toEqual([]);
    expect((await fx.gw.adminApi('PUT', `/apis/${id}`, { api: { name: 'Renamed' } })).status).toBe(204);
    expect((await get('/old/x')).status).toBe(200);
  });

  it('leave out header values stored before they were checked, instead of failing every request', async () => {
    const id = await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/unchecked/', backend_prefix: '/' }] }));
    const db = fx.gw.context.db;
    const draft = JSON.parse(db.prepare('SELECT document FROM api_backends WHERE id = ?').pluck().get(id) as string);
    draft.settings.headers = [{ key: 'X-Up', value: 'to → upstream' }];
    draft.settings.default_response_headers = [{ key: 'X-Down', value: 'to → client' }, { key: 'X-Fine', value: 'fine' }];
    db.prepare('UPDATE api_backends SET document = ? WHERE id = ?').run(JSON.stringify(draft), id);
    expect((await fx.gw.adminApi('POST', '/config/publish', { config: { apis: { [id]: { publish: '1' } } } })).status).toBe(201);
    const reply = await get('/unchecked/x');
    expect(reply.status).toBe(200);
    expect(reply.headers['x-down']).toBeUndefined();
    expect(reply.headers['x-fine']).toBe('fine');
  });
});

describe('the admin API', () => {
  it('takes the lists as "Key: value" lines too, and names a bad header in its 422', async () => {
    const created = await fx.gw.adminApi('POST', '/apis', { api: echoBackend(fx.echo, { settings: { default_response_headers_string: 'X-A: 1\nX-B:two' } }) });
    expect(created.status).toBe(201);
    expect(created.body.api.settings.default_response_headers).toMatchObject([{ key: 'X-A', value: '1' }, { key: 'X-B', value: 'two' }]);
    const refused = await fx.gw.adminApi('POST', '/apis', { api: echoBackend(fx.echo, { settings: { override_response_headers: [{ key: 'Bad Name', value: 'x' }] } }) });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toHaveProperty(['settings.override_response_headers[0].key']);
  });

  it('refuses values HTTP cannot carry, which would have made every response a 502, and takes Latin-1', async () => {
    for (const [field, value] of [['default_response_headers', 'déjà → vu'], ['override_response_headers', 'price in €'], ['headers', 'bell\u0007']] as const) {
      const refused = await fx.gw.adminApi('POST', '/apis', { api: echoBackend(fx.echo, { settings: { [field]: [{ key: 'X-Note', value }] } }) });
      expect(refused.status, field).toBe(422);
      expect(refused.body.errors[`settings.${field}[0].value`]).toEqual(['must be printable ASCII or Latin-1 text']);
    }
    const id = await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/latin/', backend_prefix: '/' }], settings: { default_response_headers: [{ key: 'X-Note', value: 'déjà vu' }] } }));
    expect(id).toBeTruthy();
    const reply = await get('/latin/x');
    expect(reply.status).toBe(200);
    expect(Buffer.from(String(reply.headers['x-note']), 'latin1').toString('latin1')).toBe('déjà vu');
  });
});
