// API Umbrella's rule for admin groups, over a real socket: managing API users
// or admins comes with viewing them (its test/apis/v1/admin_groups/test_create.rb).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let scopeId: string;

beforeEach(async () => {
  gw = await startTestGateway();
  const scope = await gw.adminApi('POST', '/api_scopes', { api_scope: { name: 'Weather', host: 'api.example.com', path_prefix: '/weather/' } });
  scopeId = scope.body.api_scope.id;
});
afterEach(() => gw.stop());

const post = (name: string, permission_ids: string[]) => gw.adminApi('POST', '/admin_groups.json', { admin_group: { name, api_scope_ids: [scopeId], permission_ids } });

describe('a group granting a manage permission', () => {
  it("is refused without user_view for user_manage, in API Umbrella's words, and made with it", async () => {
    expect(await post('User managers', ['user_manage'])).toMatchObject({
      status: 422,
      body: { errors: { permission_ids: ['user_view permission must be included if user_manage is enabled'] } },
    });
    const made = await post('User managers', ['user_manage', 'user_view']);
    expect(made.status).toBe(201);
    expect(made.body.admin_group.permission_ids).toEqual(['user_manage', 'user_view']);
  });

  it("is refused without admin_view for admin_manage, in API Umbrella's words, and made with it", async () => {
    expect(await post('Admin managers', ['admin_manage'])).toMatchObject({
      status: 422,
      body: { errors: { permission_ids: ['admin_view permission must be included if admin_manage is enabled'] } },
    });
    expect((await post('Admin managers', ['admin_manage', 'admin_view'])).status).toBe(201);
    expect(gw.context.adminGroups.listGroups().map((group) => group.name)).toEqual(['Admin managers']);
  });

  it('tells both at once, and refuses a change taking the view permission away, changing nothing', async () => {
    expect((await post('Both', ['admin_manage', 'user_manage'])).body).toEqual({
      errors: {
        permission_ids: ['user_view permission must be included if user_manage is enabled', 'admin_view permission must be included if admin_manage is enabled'],
      },
    });
    const group = (await post('Managers', ['user_manage', 'user_view', 'analytics'])).body.admin_group;
    const changed = await gw.adminApi('PUT', `/admin_groups/${group.id}`, { admin_group: { permission_ids: ['user_manage', 'analytics'] } });
    expect(changed).toMatchObject({ status: 422, body: { errors: { permission_ids: ['user_view permission must be included if user_manage is enabled'] } } });
    expect(gw.context.adminGroups.getGroup(group.id)!.permission_ids).toEqual(['user_manage', 'user_view', 'analytics']);
  });
});
