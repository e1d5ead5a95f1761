// API Umbrella applies a settings object's rate_limits whenever the list is
// non-empty, and its own tests and its operators' scripts send limits without
// a rate_limit_mode. Parasol stores such input as "custom", so the limits are
// enforced, not silently replaced by the defaults. Its own web forms save
// their rows only under "Custom rate limits": a form switched to "Default"
// means the defaults (rows typed under it are refused). Real sockets:
// backends and users are made over the admin API (or the admin's pages) and
// tried through the proxy.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { EMPTY_SETTINGS } from '../../src/api-backends/model.js';
import { parseApiBackend } from '../../src/api-backends/validate.js';
import { ManualClock } from '../../src/lib/clock.js';
import { AdminClient, createAdmin } from '../admin-ui/helpers/admin-client.js';
import { formFieldsOf } from '../admin-ui/helpers/form-fields.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { backendOnHost } from './support.js';

const HOUR = 3_600_000;
/** The gateway-wide default here: 5 per hour per key, with headers, so which limit applies shows in X-RateLimit-Limit. */
const DEFAULT_LIMITS = [{ duration: HOUR, limit_by: 'api_key', limit: 5, response_headers: true }];
/** As API Umbrella's tests write a limit: limit_to, and no rate_limit_mode beside it. */
const perHour = (limit: number) => ({ duration: HOUR, limit_by: 'api_key', limit_to: limit, response_headers: true });

let gateway: TestGateway;
let upstream: EchoUpstream;
let hosts = 0;
let users = 0;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  gateway = await startTestGateway({ default_api_backend_settings: { rate_limits: DEFAULT_LIMITS } }, { clock: new ManualClock(Date.UTC(2026, 0, 1)) });
});

afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
});

/** A backend on a fresh frontend host (its own counters), as the admin API takes it. */
const backendOn = (host: string, settings: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => backendOnHost(host, upstream.port, settings, extra);

function freshHost(): string {
  hosts += 1;
  return `no-mode-${hosts}.example.test`;
}

async function publish(id: string): Promise<void> {
  const published = await gateway.adminApi('POST', '/config/publish', { config: { apis: { [id]: { publish: '1' } } } });
  expect(published.status).toBe(201);
}

/** A user made over the admin API (API Umbrella's POST /api-umbrella/v1/users); answers its id and key. */
async function userWith(settings: Record<string, unknown> = {}): Promise<{ id: string; apiKey: string }> {
  users += 1;
  const created = await gateway.adminApi('POST', '/users', { user: { email: `no-mode-${users}@example.com`, first_name: 'Ada', last_name: 'Lovelace', settings } });
  expect(created.status).toBe(201);
  return { id: created.body.user.id, apiKey: created.body.user.api_key };
}

/** `count` calls in a row: each one's status, X-RateLimit-Limit and X-RateLimit-Remaining. */
async function calls(host: string, apiKey: string, count: number, path = '/hello'): Promise<[number, string | undefined, string | undefined][]> {
  const seen: [number, string | undefined, string | undefined][] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await request(`${gateway.url}${path}`, { headers: { host, 'x-api-key': apiKey } });
    await response.body.dump();
    const header = (name: string) => response.headers[name] as string | undefined;
    seen.push([response.statusCode, header('x-ratelimit-limit'), header('x-ratelimit-remaining')]);
  }
  return seen;
}

const THREE_THEN_REFUSED = [
  [200, '3', '2'],
  [200, '3', '1'],
  [200, '3', '0'],
  [429, '3', '0'],
];

describe('rate_limits sent to the admin API without rate_limit_mode', () => {
  it("are a backend's limits: 3/hour refuses the 4th request, and the backend is stored as custom", async () => {
    const host = freshHost();
    const created = await gateway.adminApi('POST', '/apis', { api: backendOn(host, { rate_limit_mode: null, rate_limits: [perHour(3)] }) });
    expect(created.status).toBe(201);
    await publish(created.body.api.id);
    expect(await calls(host, (await userWith()).apiKey, 4)).toEqual(THREE_THEN_REFUSED);
    expect(created.body.api.settings).toMatchObject({ rate_limit_mode: 'custom', rate_limits: [{ duration: HOUR, limit: 3 }] });
  });

  it("are a sub-setting's limits, over the backend's defaults", async () => {
    const host = freshHost();
    const sub = { http_method: 'any', regex: '^/lower', settings: { rate_limits: [perHour(3)] } };
    const created = await gateway.adminApi('POST', '/apis', { api: backendOn(host, {}, { sub_settings: [sub] }) });
    await publish(created.body.api.id);
    const { apiKey } = await userWith();
    expect(await calls(host, apiKey, 4, '/lower/hello')).toEqual(THREE_THEN_REFUSED);
    expect(created.body.api.sub_settings[0].settings.rate_limit_mode).toBe('custom');
    // The backend's own paths keep the defaults; an hourly limit by key in the same bucket, it shares the sub-setting's count (3 passed).
    expect(await calls(host, apiKey, 1)).toEqual([[200, '5', '1']]);
  });

  it('are set on a backend by an update too, and an empty list or "unlimited" keeps its meaning', async () => {
    const host = freshHost();
    const created = await gateway.adminApi('POST', '/apis', { api: backendOn(host) });
    const id = created.body.api.id as string;
    expect(created.body.api.settings.rate_limit_mode).toBeNull();
    const updated = await gateway.adminApi('PUT', `/apis/${id}`, { api: backendOn(host, { rate_limits: [perHour(3)] }) });
    expect(updated.status).toBe(204);
    await publish(id);
    expect(await calls(host, (await userWith()).apiKey, 4)).toEqual(THREE_THEN_REFUSED);

    await gateway.adminApi('PUT', `/apis/${id}`, { api: backendOn(host, { rate_limit_mode: 'unlimited', rate_limits: [perHour(3)] }) });
    expect((await gateway.adminApi('GET', `/apis/${id}`)).body.api.settings.rate_limit_mode).toBe('unlimited');
    await gateway.adminApi('PUT', `/apis/${id}`, { api: backendOn(host, { rate_limit_mode: '', rate_limits: [] }) });
    expect((await gateway.adminApi('GET', `/apis/${id}`)).body.api.settings.rate_limit_mode).toBeNull();
  });

  it('do not turn on limits a stored backend kept without a mode when an update leaves its settings alone', async () => {
    const host = freshHost();
    // As older saves left it: limits stored beside a null mode, which mean the defaults.
    const parsed = parseApiBackend(backendOn(host, {}, { sub_settings: [{ http_method: 'any', regex: '^/sub', settings: {} }] }));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const stale = { ...EMPTY_SETTINGS, rate_limits: [{ id: randomUUID(), duration: HOUR, limit_by: 'api_key' as const, limit: 3, response_headers: true }] };
    const stored = gateway.context.backends.create({ ...parsed.value, settings: stale, sub_settings: [{ ...parsed.value.sub_settings[0]!, settings: stale }] }, null);
    expect((await gateway.adminApi('PUT', `/apis/${stored.id}`, { api: { name: `${host} renamed` } })).status).toBe(204);
    const updated = gateway.context.backends.get(stored.id)!;
    expect([updated.name, updated.settings.rate_limit_mode, updated.sub_settings[0]!.settings.rate_limit_mode]).toEqual([`${host} renamed`, null, null]);
    await publish(stored.id);
    const { apiKey } = await userWith();
    expect(await calls(host, apiKey, 1)).toEqual([[200, '5', '4']]);
    expect(await calls(host, apiKey, 1, '/sub/x')).toEqual([[200, '5', '3']]);
  });

  it("are a user's limits, when created and when updated", async () => {
    const host = freshHost();
    await publish((await gateway.adminApi('POST', '/apis', { api: backendOn(host) })).body.api.id);
    const created = await userWith({ rate_limits: [perHour(3)] });
    expect(await calls(host, created.apiKey, 4)).toEqual(THREE_THEN_REFUSED);
    expect(gateway.context.users.get(created.id)!.settings.rate_limit_mode).toBe('custom');

    const updated = await userWith();
    expect(await calls(host, updated.apiKey, 1)).toEqual([[200, '5', '4']]);
    const put = await gateway.adminApi('PUT', `/users/${updated.id}`, { user: { settings: { rate_limit_mode: null, rate_limits: [perHour(10)] } } });
    expect(put.status).toBe(200);
    expect(put.body.user.settings.rate_limit_mode).toBe('custom');
    expect(await calls(host, updated.apiKey, 1)).toEqual([[200, '10', '8']]);
  });
});

describe("the admin's pages with Rate Limit switched from Custom to Default, the saved rows still in the form (as a page without JavaScript posts them)", () => {
  let client: AdminClient;
  beforeAll(async () => {
    await createAdmin(gateway.context, 'no-mode-admin@example.com');
    client = new AdminClient(gateway.app);
    await client.signIn('no-mode-admin@example.com');
  });

  /** The page's form as a browser sends it, with these fields changed. */
  async function editedForm(page: string, action: string, changes: Record<string, string>): Promise<Record<string, string>> {
    return { ...Object.fromEntries(formFieldsOf((await client.get(page)).body, action)), ...changes };
  }

  it('save a backend and a sub-setting that then get the defaults; a row typed in the while is refused', async () => {
    const host = freshHost();
    const sub = { http_method: 'any', regex: '^/sub', settings: { rate_limit_mode: 'custom', rate_limits: [perHour(2)] } };
    const id = (await gateway.adminApi('POST', '/apis', { api: backendOn(host, { rate_limit_mode: 'custom', rate_limits: [perHour(3)] }, { sub_settings: [sub] }) })).body.api.id as string;
    const action = `/admin/apis/${id}`;
    const toDefault = { 'settings[rate_limit_mode]': '', 'sub_settings[0][settings][rate_limit_mode]': '' };
    const typed = {
      'settings[rate_limits][9][duration_value]': '1',
      'settings[rate_limits][9][duration_unit]': 'hours',
      'settings[rate_limits][9][limit_by]': 'api_key',
      'settings[rate_limits][9][limit]': '7',
    };
    const refused = await client.post(action, await editedForm(`${action}/edit`, action, { ...toDefault, ...typed }));
    expect(refused.statusCode).toBe(422);
    const saved = await client.post(action, await editedForm(`${action}/edit`, action, toDefault));
    expect(saved.statusCode).toBe(303);
    expect(gateway.context.backends.get(id)!.settings).toMatchObject({ rate_limit_mode: null, rate_limits: [] });
    await publish(id);
    const { apiKey } = await userWith();
    expect(await calls(host, apiKey, 4)).toEqual([
      [200, '5', '4'],
      [200, '5', '3'],
      [200, '5', '2'],
      [200, '5', '1'],
    ]);
    expect(await calls(host, apiKey, 1, '/sub/x')).toEqual([[200, '5', '0']]);
  });

  it("save a user who then gets the backend's limits", async () => {
    const host = freshHost();
    await publish((await gateway.adminApi('POST', '/apis', { api: backendOn(host) })).body.api.id);
    const { id, apiKey } = await userWith({ rate_limits: [perHour(3)] });
    const action = `/admin/api_users/${id}`;
    const saved = await client.post(action, await editedForm(action, action, { 'settings[rate_limit_mode]': '' }));
    expect(saved.statusCode).toBe(303);
    expect(await calls(host, apiKey, 4)).toEqual([
      [200, '5', '4'],
      [200, '5', '3'],
      [200, '5', '2'],
      [200, '5', '1'],
    ]);
  });
});
