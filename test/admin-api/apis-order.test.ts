// The backends' order (sort_order) and PUT /apis/:id/move_after, as API
// Umbrella's test/apis/v1/apis/test_create_sort_order.rb and test_move_after.rb
// describe them; and two backends on the same host and prefix, which API
// Umbrella allows (test_save_url_match_validations.rb), the first in the order
// getting their requests once published.
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createScopedAdmin } from '../helpers/scoped-admin.js';

let gw: TestGateway;
let echo: EchoUpstream;
beforeAll(async () => {
  [gw, echo] = await Promise.all([startTestGateway({ default_api_backend_settings: { rate_limits: [] } }), startEchoUpstream()]);
});
afterAll(async () => {
  await gw.stop();
  await echo.close();
});
// Each test starts without backends, drafts or live (orders start at 0 again).
beforeEach(async () => {
  const ids: string[] = [
    ...(await gw.adminApi('GET', '/apis')).body.data.map((api: { id: string }) => api.id),
    ...gw.context.publisher.current.apis.map((api) => api.id),
  ];
  for (const id of ids) await gw.adminApi('DELETE', `/apis/${id}`);
  if (ids.length > 0) await gw.adminApi('POST', '/config/publish', { config: { apis: Object.fromEntries(ids.map((id) => [id, { publish: '1' }])) } });
  expect(gw.context.publisher.current.apis).toEqual([]);
});

let made = 0;
function backend(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  made++;
  return {
    name: `Ordered ${made}`,
    frontend_host: 'order.example.com',
    backend_host: 'backend.example',
    servers: [{ host: '127.0.0.1', port: echo.port }],
    url_matches: [{ frontend_prefix: `/ordered-${made}/`, backend_prefix: '/' }],
    ...overrides,
  };
}

async function create(overrides: Record<string, unknown> = {}): Promise<{ id: string; sort_order: number }> {
  const created = await gw.adminApi('POST', '/apis.json', { api: backend(overrides) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.api;
}

const withOrder = (sort_order: number) => create({ sort_order });

async function orders(...apis: { id: string }[]): Promise<number[]> {
  return Promise.all(apis.map(async (api) => (await gw.adminApi('GET', `/apis/${api.id}`)).body.api.sort_order as number));
}

/** As API Umbrella's tests send it: form fields, `move_after_id` without a value for nil. */
function moveAfter(api: { id: string }, after: { id: string } | null, token = gw.adminToken): Promise<Response> {
  return fetch(`${gw.url}/api-umbrella/v1/apis/${api.id}/move_after.json`, {
    method: 'PUT',
    headers: { 'X-Admin-Auth-Token': token, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: after === null ? 'move_after_id' : `move_after_id=${after.id}`,
  });
}

async function moved(api: { id: string }, after: { id: string } | null): Promise<void> {
  const response = await moveAfter(api, after);
  expect(response.status, await response.text()).toBe(204);
}

describe('sort_order on create (test_create_sort_order.rb)', () => {
  it('starts at 0 and adds 10000 for each new backend, also when sort_order is sent as null', async () => {
    expect((await create()).sort_order).toBe(0);
    expect((await create({ sort_order: null })).sort_order).toBe(10_000);
    expect((await create({ sort_order: '' })).sort_order).toBe(20_000);
  });

  it('keeps a sort_order given on create, and one given on update, as JSON or form text', async () => {
    const api = await withOrder(8);
    expect(api.sort_order).toBe(8);
    expect(await orders(api)).toEqual([8]);
    expect((await gw.adminApi('PUT', `/apis/${api.id}`, { api: { sort_order: '-5' } })).status).toBe(204);
    expect(await orders(api)).toEqual([-5]);
    // A PUT without it keeps the place.
    expect((await gw.adminApi('PUT', `/apis/${api.id}`, { api: { name: 'Renamed' } })).status).toBe(204);
    expect(await orders(api)).toEqual([-5]);
  });

  it('refuses a sort_order that is no whole number in PostgreSQL integer range', async () => {
    for (const sort_order of ['abc', 1.5, 2_147_483_648, [1]]) {
      const response = await gw.adminApi('POST', '/apis', { api: backend({ sort_order }) });
      expect([response.status, response.body.errors], String(sort_order)).toEqual([422, { sort_order: ['must be a whole number from -2147483648 to 2147483647'] }]);
    }
  });

  it('fills in sort orders halfway to the integer limit as it nears it', async () => {
    await withOrder(2_147_483_600);
    expect((await create()).sort_order).toBe(2_147_483_624);
    expect((await create()).sort_order).toBe(2_147_483_636);
    expect((await create()).sort_order).toBe(2_147_483_642);
  });

  it('reshuffles the backends before it when the integer range is exceeded', async () => {
    const api1 = await withOrder(2_147_483_000);
    const api2 = await withOrder(2_147_483_645);
    const api3 = await create();
    expect(api3.sort_order).toBe(2_147_483_646);
    const api4 = await create();
    expect(api4.sort_order).toBe(2_147_483_647);
    const api5 = await create();
    expect(api5.sort_order).toBe(2_147_483_647);
    expect(await orders(api1, api2, api3, api4, api5)).toEqual([2_147_483_000, 2_147_483_644, 2_147_483_645, 2_147_483_646, 2_147_483_647]);
  });

  it('lists the backends in that order', async () => {
    const last = await withOrder(50);
    const first = await withOrder(-50);
    const middle = await withOrder(0);
    const listed = (await gw.adminApi('GET', '/apis')).body.data.map((api: { id: string }) => api.id);
    expect(listed).toEqual([first.id, middle.id, last.id]);
  });
});

describe('PUT /apis/:id/move_after (test_move_after.rb)', () => {
  it('moves to the beginning when move_after_id is null', async () => {
    const [api1, api2, api3, api4] = [await create(), await create(), await create(), await create()];
    expect(await orders(api1, api2, api3, api4)).toEqual([0, 10_000, 20_000, 30_000]);
    await moved(api3, null);
    expect(await orders(api1, api2, api3, api4)).toEqual([0, 10_000, -10_000, 30_000]);
  });

  it('moves to the beginning, 10000 before the first, with a JSON null, without the field or without a body', async () => {
    const api1 = await withOrder(99);
    const api2 = await create();
    expect(await orders(api1, api2)).toEqual([99, 10_099]);
    expect((await gw.adminApi('PUT', `/apis/${api2.id}/move_after`, { move_after_id: null })).status).toBe(204);
    expect(await orders(api1, api2)).toEqual([99, -9_901]);
    expect((await gw.adminApi('PUT', `/apis/${api1.id}/move_after.json`, {})).status).toBe(204);
    expect((await gw.adminApi('PUT', `/apis/${api2.id}/move_after.json`)).status).toBe(204);
    expect(await orders(api1, api2)).toEqual([-19_901, -29_901]);
  });

  it('moves to the middle without changing the surrounding orders', async () => {
    const [api1, api2, api3] = [await create(), await create(), await create()];
    await moved(api3, api1);
    expect(await orders(api1, api2, api3)).toEqual([0, 10_000, 5_000]);
  });

  it('changes no evenly distributed order when the backend stays where it is', async () => {
    const [api1, api2, api3] = [await create(), await create(), await create()];
    expect((await gw.adminApi('PUT', `/apis/${api2.id}/move_after.json`, { move_after_id: api1.id })).status).toBe(204);
    expect(await orders(api1, api2, api3)).toEqual([0, 10_000, 20_000]);
  });

  it('takes the middle when orders are not evenly distributed, and 10000 after the last', async () => {
    const [api1, api2, api3] = [await withOrder(0), await withOrder(10_000), await withOrder(100_000)];
    await moved(api2, api1);
    expect(await orders(api1, api2, api3)).toEqual([0, 50_000, 100_000]);

    const [api4, api5] = [await withOrder(200_000), await withOrder(203_000)];
    await moved(api5, api4);
    expect(await orders(api4, api5)).toEqual([200_000, 210_000]);
  });

  it('reshuffles positive orders without gaps', async () => {
    const apis = [await withOrder(0), await withOrder(1), await withOrder(2), await withOrder(3), await withOrder(10)];
    await moved(apis[2]!, apis[0]!);
    expect(await orders(...apis)).toEqual([-1, 1, 0, 3, 10]);
  });

  it('reshuffles positive orders near the integer limit', async () => {
    const apis = [await withOrder(2_147_483_640), await withOrder(2_147_483_645), await withOrder(2_147_483_646), await withOrder(2_147_483_647)];
    await moved(apis[1]!, apis[3]!);
    expect(await orders(...apis)).toEqual([2_147_483_640, 2_147_483_647, 2_147_483_645, 2_147_483_646]);
    await moved(apis[2]!, null);
    expect(await orders(...apis)).toEqual([2_147_483_640, 2_147_483_647, 2_147_473_640, 2_147_483_646]);
  });

  it('reshuffles negative orders without gaps', async () => {
    const apis = [await withOrder(-10), await withOrder(-9), await withOrder(-8), await withOrder(-7), await withOrder(0)];
    await moved(apis[2]!, apis[0]!);
    expect(await orders(...apis)).toEqual([-10, -8, -9, -7, 0]);
  });

  it('reshuffles negative orders near the integer limit', async () => {
    const apis = [await withOrder(-2_147_483_648), await withOrder(-2_147_483_647), await withOrder(-2_147_483_646), await withOrder(-2_147_483_640)];
    await moved(apis[2]!, apis[0]!);
    expect(await orders(...apis)).toEqual([-2_147_483_648, -2_147_483_646, -2_147_483_647, -2_147_483_640]);
    await moved(apis[2]!, null);
    expect(await orders(...apis)).toEqual([-2_147_483_647, -2_147_483_646, -2_147_483_648, -2_147_483_640]);
  });

  it('answers 404 for an unknown backend, 422 for an unknown move_after_id, 401 without a token, and changes nothing', async () => {
    const api = await create();
    expect((await moveAfter({ id: 'no-such-backend' }, null)).status).toBe(404);
    const unknownAfter = await moveAfter(api, { id: 'no-such-backend' });
    expect([unknownAfter.status, await unknownAfter.json()]).toEqual([422, { errors: { move_after_id: ['does not name an API backend'] } }]);
    expect((await moveAfter(api, null, 'wrong-token-wrong-token')).status).toBe(401);
    expect(await orders(api)).toEqual([0]);
  });

  it('asks what an update asks: an admin may move only backends within their reach, after backends within it', async () => {
    const mine = await create({ url_matches: [{ frontend_prefix: '/team/a/', backend_prefix: '/' }] });
    const alsoMine = await create({ url_matches: [{ frontend_prefix: '/team/b/', backend_prefix: '/' }] });
    const theirs = await create({ url_matches: [{ frontend_prefix: '/other/', backend_prefix: '/' }] });
    const team = await createScopedAdmin(gw.context, { email: 'team@example.com', scopes: [{ host: 'order.example.com', path_prefix: '/team/' }], permissions: ['backend_manage'] });
    const viewer = await createScopedAdmin(gw.context, { email: 'viewer@example.com', scopes: [{ host: 'order.example.com', path_prefix: '/team/' }], permissions: ['analytics'] });

    for (const [api, after] of [[theirs, null], [theirs, mine], [mine, theirs]] as const) {
      const refused = await moveAfter(api, after, team.authToken);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('FORBIDDEN');
    }
    expect((await moveAfter(mine, null, viewer.authToken)).status).toBe(403);
    expect(await orders(mine, alsoMine, theirs)).toEqual([0, 10_000, 20_000]);

    expect((await moveAfter(mine, alsoMine, team.authToken)).status).toBe(204);
    expect(await orders(mine, alsoMine, theirs)).toEqual([15_000, 10_000, 20_000]);
  });
});

describe('two backends on the same host and prefix', () => {
  const shared = (name: string, backendPrefix: string) =>
    backend({ name, frontend_host: 'shared.example.com', url_matches: [{ frontend_prefix: '/shared/', backend_prefix: backendPrefix }] });

  async function publishAll(): Promise<void> {
    const ids = (await gw.adminApi('GET', '/apis')).body.data.map((api: { id: string }) => api.id);
    const published = await gw.adminApi('POST', '/config/publish', { config: { apis: Object.fromEntries(ids.map((id: string) => [id, { publish: '1' }])) } });
    expect(published.status).toBe(201);
  }

  const call = async () => {
    const { apiKey } = await gw.createUser({ email: `caller-${Math.random().toString(36).slice(2)}@example.com` });
    // fetch() will not send a Host of our choosing.
    const body = await new Promise<string>((resolve, reject) => {
      const sent = request(`${gw.url}/shared/x`, { agent: false, headers: { 'x-api-key': apiKey, host: 'shared.example.com' } }, (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
      });
      sent.on('error', reject).end();
    });
    return (JSON.parse(body) as { path: string }).path;
  };

  it('are both accepted, as in API Umbrella; one backend still may not list a prefix twice', async () => {
    const first = await gw.adminApi('POST', '/apis', { api: shared('First', '/first/') });
    const second = await gw.adminApi('POST', '/apis', { api: shared('Second', '/second/') });
    expect([first.status, second.status]).toEqual([201, 201]);
    // Also on update, and under another host's case.
    expect((await gw.adminApi('PUT', `/apis/${second.body.api.id}`, { api: { frontend_host: 'SHARED.example.com' } })).status).toBe(204);

    const twice = await gw.adminApi('POST', '/apis', {
      api: backend({ url_matches: [{ frontend_prefix: '/foo', backend_prefix: '/' }, { frontend_prefix: '/foo', backend_prefix: '/other/' }] }),
    });
    expect([twice.status, twice.body.errors]).toEqual([422, { 'url_matches[1].frontend_prefix': ['has already been taken'] }]);
  });

  it('send the requests to the first in the order; a move changes that once it is published, as a pending change', async () => {
    const first = await create({ ...shared('First', '/first/') });
    const second = await create({ ...shared('Second', '/second/') });
    await publishAll();
    expect(await call()).toBe('/first/x');

    await moved(second, null);
    // A draft change like any other: nothing live moves before it is published.
    const pending = (await gw.adminApi('GET', '/config/pending_changes')).body.config.apis;
    expect(pending.modified.map((change: { id: string }) => change.id)).toEqual([second.id]);
    expect(pending.identical.map((change: { id: string }) => change.id)).toEqual([first.id]);
    expect(await call()).toBe('/first/x');

    const published = await gw.adminApi('POST', '/config/publish', { config: { apis: { [second.id]: { publish: '1' } } } });
    expect(published.status).toBe(201);
    expect(published.body.config_version.changes).toEqual({ new: [], modified: ['Second'], deleted: [] });
    expect(await call()).toBe('/second/x');
    expect((await gw.adminApi('GET', '/config/pending_changes')).body.config.apis.modified).toEqual([]);
  });

  it('give a tie between equal sort orders in the live config to the backend created first, whatever the order they were published in', async () => {
    const first = await create(shared('First', '/first/'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Given the first one's sort_order, the second pushes it aside (down), as in API Umbrella.
    const second = await create({ ...shared('Second', '/second/'), sort_order: 0 });
    expect(await orders(first, second)).toEqual([-1, 0]);
    expect((await gw.adminApi('POST', '/config/publish', { config: { apis: { [second.id]: { publish: '1' } } } })).status).toBe(201);
    // The first takes 0 back (the second's draft goes to -1, its live copy keeps 0), and is published alone.
    expect((await gw.adminApi('PUT', `/apis/${first.id}`, { api: { sort_order: 0 } })).status).toBe(204);
    expect(await orders(first, second)).toEqual([0, -1]);
    expect((await gw.adminApi('POST', '/config/publish', { config: { apis: { [first.id]: { publish: '1' } } } })).status).toBe(201);
    expect(gw.context.publisher.current.apis.map((api) => [api.name, api.sort_order])).toEqual([['First', 0], ['Second', 0]]);
    expect(await call()).toBe('/first/x');
  });
});
