// A user's rate limits carry a UUID id, as API Umbrella's do, answered also as
// `_id` (its test/apis/v1/users/test_show.rb, test_embedded_rate_limit_response),
// and a PUT that sends them back keeps them (test_update_embedded_array_fields.rb:
// test_updates, test_removes_single_value).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const LIMITS = [
  { duration: 5000, limit_by: 'ip', limit: 10 },
  { duration: 10_000, limit_by: 'api_key', limit: 20, response_headers: true },
];

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

let serial = 0;
async function created(rateLimits: object[] = LIMITS): Promise<any> {
  serial++;
  const user = { email: `limits${serial}@example.com`, first_name: 'Rate', last_name: 'Limited', settings: { rate_limit_mode: 'custom', rate_limits: rateLimits } };
  const response = await gw.adminApi('POST', '/users', { user });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.user;
}

const show = async (id: string) => (await gw.adminApi('GET', `/users/${id}`)).body.user;
const idsOf = (user: any): string[] => user.settings.rate_limits.map((limit: any) => limit.id);

describe("an API user's rate limits", () => {
  it('each carry a distinct UUID id, also as _id, answered alike by create, show, the list and an update', async () => {
    const user = await created();
    const ids = idsOf(user);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(2);
    const shown = await show(user.id);
    expect(Object.keys(shown.settings.rate_limits[0]).sort()).toEqual(['_id', 'duration', 'id', 'limit', 'limit_by', 'response_headers']);
    for (const limit of shown.settings.rate_limits) expect(limit._id).toBe(limit.id);
    expect(idsOf(shown)).toEqual(ids);
    const listed = (await gw.adminApi('GET', `/users?search=${encodeURIComponent(user.email)}`)).body.data;
    expect(listed.map(idsOf)).toEqual([ids]);
    expect(listed[0].settings.rate_limits.map((limit: any) => limit._id)).toEqual(ids);
    const updated = (await gw.adminApi('PUT', `/users/${user.id}`, { user: { use_description: 'Updated' } })).body.user;
    expect(updated.settings.rate_limits.map((limit: any) => [limit.id, limit._id])).toEqual(ids.map((id) => [id, id]));
  });

  it('keep the ids a PUT sends back with changed values, as API Umbrella keeps them', async () => {
    const user = await created();
    const sentBack = await show(user.id);
    sentBack.settings.rate_limits[0].limit = 50;
    sentBack.settings.rate_limits[1].limit = 75;
    expect((await gw.adminApi('PUT', `/users/${user.id}`, { user: sentBack })).status).toBe(200);
    const limits = (await show(user.id)).settings.rate_limits;
    expect(limits.map((limit: any) => [limit.id, limit.duration, limit.limit])).toEqual([
      [user.settings.rate_limits[0].id, 5000, 50],
      [user.settings.rate_limits[1].id, 10_000, 75],
    ]);
  });

  it('keep the id of the limit left when a PUT removes the other', async () => {
    const user = await created();
    const [, second] = user.settings.rate_limits;
    expect((await gw.adminApi('PUT', `/users/${user.id}`, { user: { settings: { ...user.settings, rate_limits: [second] } } })).status).toBe(200);
    expect(idsOf(await show(user.id))).toEqual([second.id]);
  });

  it('keep the ids sent on create, and get new ones where the id is missing, not a UUID, or already taken by a limit of the user', async () => {
    const chosen = randomUUID();
    const user = await created([
      { ...LIMITS[0], id: chosen },
      { ...LIMITS[1], id: chosen },
      { duration: 60_000, limit_by: 'ip', limit: 100, id: 'limit-3' },
      { duration: 120_000, limit_by: 'ip', limit: 200 },
    ]);
    const ids = idsOf(user);
    expect(ids[0]).toBe(chosen);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(4);
  });
});
