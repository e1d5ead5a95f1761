// The records a backend embeds (servers, URL prefixes, sub-settings, rewrites,
// headers, rate limits) carry a UUID id, as API Umbrella's do
// (test/apis/v1/apis/test_show.rb), and a PUT that sends them back keeps them
// (test_update_embedded_array_fields.rb, test_updates_settings).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const SETTINGS = {
  headers: [{ key: 'X-Header1', value: 'one' }],
  default_response_headers: [{ key: 'X-Default1', value: 'd' }],
  override_response_headers: [{ key: 'X-Override1', value: 'o' }, { key: 'X-Override2', value: 'p' }],
  rate_limit_mode: 'custom',
  rate_limits: [
    { duration: 1000, limit_by: 'ip', limit: 5 },
    { duration: 2000, limit_by: 'ip', limit: 9 },
  ],
};

let serial = 0;
/** A backend with at least one record in every embedded list, on a prefix of its own. */
function fullApi() {
  serial++;
  return {
    name: `Embedded ${serial}`,
    frontend_host: 'api.example.com',
    backend_host: 'example.com',
    servers: [{ host: '127.0.0.1', port: 8081 }, { host: '127.0.0.2', port: 8081 }],
    url_matches: [{ frontend_prefix: `/embedded${serial}/`, backend_prefix: '/' }, { frontend_prefix: `/embedded${serial}-b/`, backend_prefix: '/' }],
    settings: SETTINGS,
    sub_settings: [{ http_method: 'any', regex: '^/sub', settings: SETTINGS }],
    rewrites: [{ matcher_type: 'route', http_method: 'any', frontend_matcher: '/a', backend_replacement: '/1' }],
  };
}

const LISTS = ['servers', 'url_matches', 'sub_settings', 'rewrites'];
const SETTINGS_LISTS = ['headers', 'default_response_headers', 'override_response_headers', 'rate_limits'];

/** Each embedded record's id, by where it sits: "servers[0]", "sub_settings[0].settings.headers[0]". */
function idsOf(api: any): Record<string, unknown> {
  const ids: Record<string, unknown> = {};
  const add = (records: { id?: unknown }[], at: string) => records.forEach((record, index) => (ids[`${at}[${index}]`] = record.id));
  for (const list of LISTS) add(api[list], list);
  const settingsIds = (settings: any, at: string) => SETTINGS_LISTS.forEach((list) => add(settings[list], `${at}.${list}`));
  settingsIds(api.settings, 'settings');
  api.sub_settings.forEach((sub: any, index: number) => settingsIds(sub.settings, `sub_settings[${index}].settings`));
  return ids;
}

/** A backend as API Umbrella's tests send it back: the answer without the header text (which, sent, would win over the lists). */
function asSentBack(api: any): any {
  const withoutText = ({ headers_string, default_response_headers_string, override_response_headers_string, ...settings }: any) => settings;
  return { ...api, settings: withoutText(api.settings), sub_settings: api.sub_settings.map((sub: any) => ({ ...sub, settings: withoutText(sub.settings) })) };
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

async function created(api: unknown): Promise<any> {
  const response = await gw.adminApi('POST', '/apis', { api });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.api;
}

const show = async (id: string) => (await gw.adminApi('GET', `/apis/${id}`)).body.api;

describe('embedded records of API backends', () => {
  it('each carry a UUID id, distinct within the backend, answered alike by create, show and the list', async () => {
    const api = await created(fullApi());
    const ids = idsOf(api);
    expect(Object.keys(ids)).toHaveLength(2 + 2 + 1 + 1 + 2 * (1 + 1 + 2 + 2));
    for (const [at, id] of Object.entries(ids)) expect(id, at).toMatch(UUID);
    expect(new Set(Object.values(ids)).size).toBe(Object.keys(ids).length);
    expect(idsOf(await show(api.id))).toEqual(ids);
    const listed = (await gw.adminApi('GET', `/apis?search%5Bvalue%5D=${encodeURIComponent(api.name)}`)).body.data;
    expect(listed.map(idsOf)).toEqual([ids]);
  });

  it('keep the ids a PUT sends back with changed values, as API Umbrella keeps rate limits\'', async () => {
    const api = await created(fullApi());
    const changed = asSentBack(api);
    changed.servers[0].host = '127.0.0.21';
    changed.settings.rate_limits[0].duration = 5000;
    changed.settings.rate_limits[1].duration = 7500;
    changed.settings.headers[0].key = 'X-Header2';
    changed.sub_settings[0].regex = '^/other';
    changed.rewrites[0].backend_replacement = '/2';
    expect((await gw.adminApi('PUT', `/apis/${api.id}`, { api: changed })).status).toBe(204);
    const updated = await show(api.id);
    expect(idsOf(updated)).toEqual(idsOf(api));
    expect([updated.servers[0].host, updated.settings.rate_limits.map((limit: any) => limit.duration), updated.settings.headers[0].key]).toEqual(['127.0.0.21', [5000, 7500], 'X-Header2']);
  });

  it('keep the ids sent on create, and get new ones where the id is missing, not a UUID, or already taken in the backend', async () => {
    const chosen = randomUUID();
    const api = fullApi();
    const sent = {
      ...api,
      servers: [{ ...api.servers[0], id: chosen }, { ...api.servers[1], id: 'server-2' }],
      url_matches: [{ ...api.url_matches[0], id: chosen }, api.url_matches[1]],
    };
    const answered = await created(sent);
    expect(answered.servers[0].id).toBe(chosen);
    for (const id of [answered.servers[1].id, answered.url_matches[0].id, answered.url_matches[1].id]) expect(id).toMatch(UUID);
    expect(new Set(Object.values(idsOf(answered))).size).toBe(Object.keys(idsOf(answered)).length);
  });

  it('replace a list a PUT sends, its records keeping the ids sent with them', async () => {
    const api = await created(fullApi());
    const [, second] = api.servers;
    const added = { host: '127.0.0.3', port: 8081 };
    expect((await gw.adminApi('PUT', `/apis/${api.id}`, { api: { servers: [second, added] } })).status).toBe(204);
    const servers = (await show(api.id)).servers;
    expect(servers.map((server: any) => server.host)).toEqual(['127.0.0.2', '127.0.0.3']);
    expect(servers[0].id).toBe(second.id);
    expect([api.servers[0].id, second.id]).not.toContain(servers[1].id);
  });

  it("keep a header's id when the text sent beside the list still states that header", async () => {
    const api = await created(fullApi());
    const settings = { ...api.settings, headers_string: 'X-Header1: one\nX-Added: two' };
    expect((await gw.adminApi('PUT', `/apis/${api.id}`, { api: { settings } })).status).toBe(204);
    const headers = (await show(api.id)).settings.headers;
    expect(headers.map((header: any) => header.key)).toEqual(['X-Header1', 'X-Added']);
    expect(headers[0].id).toBe(api.settings.headers[0].id);
    expect(headers[1].id).toMatch(UUID);
    expect(headers[1].id).not.toBe(headers[0].id);
  });
});
