// API Umbrella routes a POST to a record's path (/apis/:id, /users/:id,
// /admins/:id, /admin_groups/:id, /api_scopes/:id) to its update, as a PUT:
// its operators' scripts may send either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdminApi, superuserToken } from '../helpers/admin-api.js';
import { startInjectedApp, type InjectedApp } from '../helpers/app.js';
import { backendConfig } from '../helpers/scoped-backends.js';
import { apiUserInput } from '../helpers/users.js';

let running: InjectedApp;
let token: string;
beforeAll(async () => {
  running = await startInjectedApp();
  token = await superuserToken(running.context);
});
afterAll(() => running.close());

function api(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
  return callAdminApi(running.app, token, method, path, body);
}

describe('POST to a record updates it as PUT does, as in API Umbrella', () => {
  it('/apis/:id, with or without .json: 204, the fields sent changed and the others kept', async () => {
    const created = await api('POST', '/apis', { api: backendConfig('Before', ['/before/']) });
    const id = created.body.api.id as string;
    expect(await api('POST', `/apis/${id}.json`, { api: { name: 'After' } })).toEqual({ status: 204, body: null });
    expect((await api('POST', `/apis/${id}`, { api: { backend_host: 'after.internal' } })).status).toBe(204);
    expect((await api('GET', `/apis/${id}`)).body.api).toMatchObject({ name: 'After', backend_host: 'after.internal', frontend_host: 'api.example.com' });
    expect((await api('POST', `/apis/${id}`, { api: { name: '' } })).body).toEqual({ errors: { name: ["can't be blank"] } });
    expect((await api('POST', '/apis/no-such-backend', { api: { name: 'X' } })).status).toBe(404);
  });

  it('/users/:id: 200 with the user as it now is', async () => {
    const { user } = running.context.users.create(apiUserInput({ first_name: 'Before' }), 'test');
    const updated = await api('POST', `/users/${user.id}.json`, { user: { first_name: 'After' } });
    expect(updated.status).toBe(200);
    expect(updated.body.user).toMatchObject({ id: user.id, first_name: 'After', email: user.email });
    expect((await api('GET', `/users/${user.id}`)).body.user.first_name).toBe('After');
  });

  it('/admins/:id: 200 with the account as it now is', async () => {
    const { admin } = (await running.context.admins.create({ email: 'before@example.com', password: 'correct horse battery staple', superuser: true }))!;
    const updated = await api('POST', `/admins/${admin.id}`, { admin: { name: 'After' } });
    expect(updated.status).toBe(200);
    expect(updated.body.admin).toMatchObject({ id: admin.id, name: 'After', username: 'before@example.com' });
  });

  it('/api_scopes/:id and /admin_groups/:id: 204', async () => {
    const scope = (await api('POST', '/api_scopes', { api_scope: { name: 'Before', host: 'api.example.com', path_prefix: '/before/' } })).body.api_scope;
    expect(await api('POST', `/api_scopes/${scope.id}.json`, { api_scope: { name: 'After' } })).toEqual({ status: 204, body: null });
    expect((await api('GET', `/api_scopes/${scope.id}`)).body.api_scope).toMatchObject({ name: 'After', path_prefix: '/before/' });

    const group = (await api('POST', '/admin_groups', { admin_group: { name: 'Before', api_scope_ids: [scope.id], permission_ids: ['analytics'] } })).body.admin_group;
    expect(await api('POST', `/admin_groups/${group.id}`, { admin_group: { name: 'After' } })).toEqual({ status: 204, body: null });
    expect((await api('GET', `/admin_groups/${group.id}`)).body.admin_group).toMatchObject({ name: 'After', permission_ids: ['analytics'] });
  });
});
