import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdminApi, EMPTY_LIST, postAdminApiForm, superuserToken } from '../helpers/admin-api.js';
import { startInjectedApp, type InjectedApp } from '../helpers/app.js';
import { createMember, createScopedAdmin } from '../helpers/scoped-admin.js';

let running: InjectedApp;
let token: string;
let weather: string;
let traffic: string;
beforeAll(async () => {
  running = await startInjectedApp();
  token = await superuserToken(running.context);
  weather = (await api('POST', '/api_scopes', { api_scope: { name: 'Weather', host: 'api.example.com', path_prefix: '/weather/' } })).body.api_scope.id;
  traffic = (await api('POST', '/api_scopes', { api_scope: { name: 'Traffic', host: 'api.example.com', path_prefix: '/traffic/' } })).body.api_scope.id;
});
afterAll(() => running.close());

function api(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) {
  return callAdminApi(running.app, token, method, path, body);
}

async function createGroup(fields: Record<string, unknown>): Promise<Record<string, any>> {
  const created = await api('POST', '/admin_groups', { admin_group: fields });
  expect(created.status).toBe(201);
  return created.body.admin_group;
}

describe('/admin_groups', () => {
  it('creates, reads, updates and deletes a group, with or without .json', async () => {
    const group = await createGroup({ name: 'Weather team', api_scope_ids: [weather], permission_ids: ['analytics', 'user_view'] });
    expect(group).toMatchObject({ name: 'Weather team', api_scope_ids: [weather], permission_ids: ['analytics', 'user_view'] });
    expect(await api('GET', `/admin_groups/${group.id}.json`)).toEqual({ status: 200, body: { admin_group: group } });
    // A PUT changes the fields it names and keeps the others.
    expect((await api('PUT', `/admin_groups/${group.id}`, { admin_group: { api_scope_ids: [weather, traffic] } })).status).toBe(204);
    const updated = (await api('GET', `/admin_groups/${group.id}`)).body.admin_group;
    expect(updated).toMatchObject({ name: 'Weather team', permission_ids: ['analytics', 'user_view'] });
    expect([...updated.api_scope_ids].sort()).toEqual([weather, traffic].sort());
    expect((await api('DELETE', `/admin_groups/${group.id}.json`)).status).toBe(204);
    expect(await api('GET', `/admin_groups/${group.id}`)).toEqual({ status: 404, body: { error: 'Not Found' } });
  });

  it("lists groups in DataTables' shape, by name", async () => {
    await createGroup({ name: 'Zeta listed', api_scope_ids: [weather], permission_ids: ['analytics'] });
    await createGroup({ name: 'Alpha listed', api_scope_ids: [weather], permission_ids: ['analytics'] });
    const list = await api('GET', '/admin_groups?draw=2');
    expect(list.body).toMatchObject({ draw: 2, recordsTotal: list.body.data.length, recordsFiltered: list.body.data.length });
    const names = list.body.data.map((group: { name: string }) => group.name).filter((name: string) => name.endsWith(' listed'));
    expect(names).toEqual(['Alpha listed', 'Zeta listed']);
  });

  it("answers a group's admins by username, and its permissions' and scopes' names beside their ids, as API Umbrella does", async () => {
    const group = await createGroup({ name: 'Named team', api_scope_ids: [weather], permission_ids: ['user_view', 'analytics'] });
    const empty = await createGroup({ name: 'Nobody in it', api_scope_ids: [traffic], permission_ids: ['analytics'] });
    const bea = await createMember(running.context, 'bea@example.com', [group.id]);
    const al = await createMember(running.context, 'al@example.com', [group.id]);
    const expected = {
      admin_usernames: ['al@example.com', 'bea@example.com'],
      admins: [
        { id: al.id, username: 'al@example.com', current_sign_in_at: null, last_sign_in_at: null },
        { id: bea.id, username: 'bea@example.com', current_sign_in_at: null, last_sign_in_at: null },
      ],
      permission_ids: ['user_view', 'analytics'],
      permission_display_names: ['API Users - View', 'Analytics'],
      api_scope_ids: [weather],
      api_scope_display_names: ['Weather - api.example.com/weather/'],
    };
    expect((await api('GET', `/admin_groups/${group.id}`)).body.admin_group).toMatchObject(expected);
    const listed = (await api('GET', '/admin_groups?search[value]=team')).body.data;
    expect(listed.find((row: { id: string }) => row.id === group.id)).toMatchObject(expected);
    expect((await api('GET', `/admin_groups/${empty.id}`)).body.admin_group).toMatchObject({ admin_usernames: [], admins: [] });
  });

  it('takes a bare object and form fields with repeated and numbered lists', async () => {
    expect((await api('POST', '/admin_groups', { name: 'Bare', api_scope_ids: [weather], permission_ids: ['admin_view'] })).status).toBe(201);
    const form = await postAdminApiForm(running.app, token, '/admin_groups', {
      'admin_group[name]': 'From a form',
      'admin_group[api_scope_ids][]': [weather, traffic],
      'admin_group[permission_ids][0]': 'backend_manage',
      'admin_group[permission_ids][1]': 'backend_publish',
    });
    expect(form.status).toBe(201);
    expect(form.body.admin_group).toMatchObject({ name: 'From a form', permission_ids: ['backend_manage', 'backend_publish'] });
    expect(form.body.admin_group.api_scope_ids).toHaveLength(2);
  });

  it('answers 422 for a blank group, unknown scopes and permissions, and a name taken in any case', async () => {
    expect(await api('POST', '/admin_groups', { admin_group: { name: '' } })).toEqual({
      status: 422,
      body: { errors: { name: ["can't be blank"], api_scopes: ["can't be blank"], permissions: ["can't be blank"] } },
    });
    const unknown = await api('POST', '/admin_groups', { admin_group: { name: 'Odd', api_scope_ids: ['no-such-scope'], permission_ids: ['admin_everything'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.api_scope_ids).toEqual(['contains "no-such-scope", which is no API scope']);
    expect(unknown.body.errors.permission_ids[0]).toContain('contains "admin_everything", which is not one of analytics, user_view');
    const group = await createGroup({ name: 'Unique', api_scope_ids: [weather], permission_ids: ['analytics'] });
    expect((await api('POST', '/admin_groups', { admin_group: { name: 'UNIQUE', api_scope_ids: [weather], permission_ids: ['analytics'] } })).body).toEqual({ errors: { name: ['has already been taken'] } });
    const refused = await api('PUT', `/admin_groups/${group.id}`, { admin_group: { permission_ids: [] } });
    expect(refused).toEqual({ status: 422, body: { errors: { permissions: ["can't be blank"] } } });
    expect((await api('GET', `/admin_groups/${group.id}`)).body.admin_group.permission_ids).toEqual(['analytics']);
  });

  it("names blank scopes and permissions api_scopes and permissions, as API Umbrella's test_removes_null and _empty_array do; the other rules permission_ids", async () => {
    const group = await createGroup({ name: 'Emptied', api_scope_ids: [weather], permission_ids: ['analytics'] });
    for (const removed of [null, []]) {
      const refused = await api('PUT', `/admin_groups/${group.id}`, { admin_group: { api_scope_ids: removed, permission_ids: removed } });
      expect(refused).toEqual({ status: 422, body: { errors: { api_scopes: ["can't be blank"], permissions: ["can't be blank"] } } });
    }
    const manageAlone = await api('PUT', `/admin_groups/${group.id}`, { admin_group: { permission_ids: ['user_manage'] } });
    expect(manageAlone.body).toEqual({ errors: { permission_ids: ['user_view permission must be included if user_manage is enabled'] } });
    expect((await api('GET', `/admin_groups/${group.id}`)).body.admin_group).toMatchObject({ api_scope_ids: [weather], permission_ids: ['analytics'] });
  });

  it('refuses scope and permission ids of the wrong type on their field, and takes them as form rows', async () => {
    const group = await createGroup({ name: 'Typed', api_scope_ids: [weather], permission_ids: ['analytics'] });
    const refused = await api('PUT', `/admin_groups/${group.id}`, { admin_group: { api_scope_ids: 12345, permission_ids: { a: 'analytics' } } });
    expect(refused).toEqual({ status: 422, body: { errors: { api_scope_ids: ['must be a list of text values'], permission_ids: ['must be a list of text values'] } } });
    expect((await api('PUT', `/admin_groups/${group.id}`, { admin_group: { permission_ids: ['analytics', 7] } })).body).toEqual({ errors: { 'permission_ids[1]': ['must be text'] } });
    expect((await api('GET', `/admin_groups/${group.id}`)).body.admin_group).toMatchObject({ api_scope_ids: [weather], permission_ids: ['analytics'] });
    expect((await api('PUT', `/admin_groups/${group.id}`, { admin_group: { permission_ids: { 0: 'analytics', 1: 'user_view' } } })).status).toBe(204);
    expect((await api('GET', `/admin_groups/${group.id}`)).body.admin_group.permission_ids).toEqual(['analytics', 'user_view']);
  });

  it('answers 404 for an unknown id', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      expect(await api(method, '/admin_groups/no-such-group', method === 'PUT' ? { admin_group: { name: 'X' } } : undefined), method).toEqual({ status: 404, body: { error: 'Not Found' } });
    }
  });

  it("applies a change to the group's admins at once, and deleting the group takes what it granted", async () => {
    const { admin, groupId } = await createScopedAdmin(running.context, { email: 'member@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/weather/' }], permissions: ['analytics'] });
    expect(running.context.adminGroups.accessOf(admin).has('user_view')).toBe(false);
    expect((await api('PUT', `/admin_groups/${groupId}`, { admin_group: { permission_ids: ['analytics', 'user_view'] } })).status).toBe(204);
    expect(running.context.adminGroups.accessOf(admin).has('user_view')).toBe(true);
    expect((await api('DELETE', `/admin_groups/${groupId}`)).status).toBe(204);
    expect(running.context.adminGroups.accessOf(admin).has('analytics')).toBe(false);
    expect(running.context.admins.get(admin.id)).not.toBeNull();
  });

  it('answers an admin without admin_view or admin_manage an empty list, as API Umbrella does, and 403 FORBIDDEN on every other route, reading included, changing nothing', async () => {
    const { authToken, groupId } = await createScopedAdmin(running.context, { email: 'scoped@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/weather/' }], permissions: ['user_view'] });
    const everything = { admin_group: { permission_ids: ['analytics', 'user_view', 'user_manage', 'admin_view', 'backend_manage', 'backend_publish'] } };
    expect(await callAdminApi(running.app, authToken, 'GET', '/admin_groups')).toEqual({ status: 200, body: EMPTY_LIST });
    const calls = [
      ['POST', '/admin_groups', { admin_group: { name: 'Mine', api_scope_ids: [traffic], permission_ids: ['backend_manage'] } }],
      ['GET', `/admin_groups/${groupId}.json`],
      ['PUT', `/admin_groups/${groupId}`, everything],
      ['DELETE', `/admin_groups/${groupId}`],
    ] as const;
    for (const [method, path, body] of calls) {
      const refused = await callAdminApi(running.app, authToken, method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('- api.example.com/weather/') });
    }
    expect(running.context.adminGroups.getGroup(groupId)!.permission_ids).toEqual(['user_view']);
    expect(running.context.adminGroups.listGroups().some((group) => group.name === 'Mine')).toBe(false);
  });
});

describe('/admin_permissions', () => {
  it('lists the permissions a group may grant in display order to any admin, as API Umbrella does', async () => {
    const { authToken } = await createScopedAdmin(running.context, { email: 'analyst@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/weather/' }], permissions: ['analytics'] });
    const expected = {
      admin_permissions: [
        { id: 'analytics', name: 'Analytics', display_order: 1 },
        { id: 'user_view', name: 'API Users - View', display_order: 2 },
        { id: 'user_manage', name: 'API Users - Manage', display_order: 3 },
        { id: 'admin_view', name: 'Admin Accounts - View', display_order: 4 },
        { id: 'admin_manage', name: 'Admin Accounts - Manage', display_order: 5 },
        { id: 'backend_manage', name: 'API Backend Configuration - View & Manage', display_order: 6 },
        { id: 'backend_publish', name: 'API Backend Configuration - Publish', display_order: 7 },
      ],
    };
    expect(await api('GET', '/admin_permissions.json')).toEqual({ status: 200, body: expected });
    expect(await callAdminApi(running.app, authToken, 'GET', '/admin_permissions')).toEqual({ status: 200, body: expected });
    expect((await callAdminApi(running.app, 'no-such-token', 'GET', '/admin_permissions')).status).toBe(401);
  });
});
