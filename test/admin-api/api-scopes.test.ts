import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAdminApi, EMPTY_LIST, postAdminApiForm, superuserToken } from '../helpers/admin-api.js';
import { startInjectedApp, type InjectedApp } from '../helpers/app.js';
import { createScopedAdmin } from '../helpers/scoped-admin.js';

let running: InjectedApp;
let token: string;
beforeAll(async () => {
  running = await startInjectedApp();
  token = await superuserToken(running.context);
});
afterAll(() => running.close());

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => callAdminApi(running.app, token, method, path, body);

async function createScope(fields: Record<string, string>): Promise<Record<string, string>> {
  const created = await api('POST', '/api_scopes', { api_scope: fields });
  expect(created.status).toBe(201);
  return created.body.api_scope;
}

describe('/api_scopes', () => {
  it('creates, reads, updates and deletes a scope, with or without .json', async () => {
    const scope = await createScope({ name: 'Weather', host: 'API.Example.com', path_prefix: '/weather/' });
    expect(scope).toMatchObject({ name: 'Weather', host: 'api.example.com', path_prefix: '/weather/' });
    for (const path of [`/api_scopes/${scope.id}`, `/api_scopes/${scope.id}.json`]) expect(await api('GET', path)).toEqual({ status: 200, body: { api_scope: scope } });
    // A PUT changes the fields it names and keeps the others.
    expect(await api('PUT', `/api_scopes/${scope.id}.json`, { api_scope: { name: 'Weather v2' } })).toEqual({ status: 204, body: null });
    expect((await api('GET', `/api_scopes/${scope.id}`)).body.api_scope).toMatchObject({ name: 'Weather v2', host: 'api.example.com', path_prefix: '/weather/' });
    expect(await api('DELETE', `/api_scopes/${scope.id}`)).toEqual({ status: 204, body: null });
    expect(await api('GET', `/api_scopes/${scope.id}`)).toEqual({ status: 404, body: { error: 'Not Found' } });
  });

  it("lists scopes in DataTables' shape, by name, paged when asked", async () => {
    await createScope({ name: 'B', host: 'list.example.com', path_prefix: '/b' });
    await createScope({ name: 'A', host: 'list.example.com', path_prefix: '/a' });
    const all = await api('GET', '/api_scopes.json?draw=4');
    expect(all.body).toMatchObject({ draw: 4, recordsTotal: all.body.data.length, recordsFiltered: all.body.data.length });
    const listed = all.body.data.filter((scope: { host: string }) => scope.host === 'list.example.com').map((scope: { name: string }) => scope.name);
    expect(listed).toEqual(['A', 'B']);
    const page = await api('GET', '/api_scopes?start=1&length=1');
    expect(page.body.data).toEqual([all.body.data[1]]);
  });

  it('takes a bare object and form fields', async () => {
    expect((await api('POST', '/api_scopes', { name: 'Bare', host: 'bare.example.com', path_prefix: '/' })).status).toBe(201);
    const form = await postAdminApiForm(running.app, token, '/api_scopes', { 'api_scope[name]': 'Form', 'api_scope[host]': 'form.example.com', 'api_scope[path_prefix]': '/form/' });
    expect(form).toMatchObject({ status: 201, body: { api_scope: { name: 'Form', host: 'form.example.com', path_prefix: '/form/' } } });
  });

  it('answers 422 with the fields at fault, on create and update', async () => {
    const invalid = await api('POST', '/api_scopes', { api_scope: { name: ' ', host: 'not a host', path_prefix: 'weather' } });
    expect(invalid).toEqual({
      status: 422,
      body: { errors: { name: ["can't be blank"], host: ['must be in the format of "example.com"'], path_prefix: ['must start with "/"'] } },
    });
    expect((await api('POST', '/api_scopes', { api_scope: { name: 'Port', host: 'port.example.com:70000', path_prefix: '/' } })).body).toEqual({ errors: { host: ['must be in the format of "example.com"'] } });
    const scope = await createScope({ name: 'Taken', host: 'taken.example.com', path_prefix: '/t/' });
    expect(await api('POST', '/api_scopes', { api_scope: { name: 'Again', host: 'taken.example.com', path_prefix: '/t/' } })).toEqual({
      status: 422,
      body: { errors: { path_prefix: ['has already been taken'] } },
    });
    const other = await createScope({ name: 'Other', host: 'taken.example.com', path_prefix: '/o/' });
    expect((await api('PUT', `/api_scopes/${other.id}`, { api_scope: { path_prefix: '/t/' } })).body).toEqual({ errors: { path_prefix: ['has already been taken'] } });
    expect((await api('PUT', `/api_scopes/${scope.id}`, { api_scope: { host: '' } })).body).toEqual({ errors: { host: ["can't be blank"] } });
    expect((await api('GET', `/api_scopes/${other.id}`)).body.api_scope.path_prefix).toBe('/o/');
  });

  it('refuses a field of the wrong type as not text, not as blank, and keeps the scope', async () => {
    const scope = await createScope({ name: 'Typed', host: 'typed.example.com', path_prefix: '/typed/' });
    const refused = await api('PUT', `/api_scopes/${scope.id}`, { api_scope: { name: { a: 1 }, host: 12345, path_prefix: ['/x/'] } });
    expect(refused).toEqual({ status: 422, body: { errors: { name: ['must be text'], host: ['must be text'], path_prefix: ['must be text'] } } });
    expect((await api('GET', `/api_scopes/${scope.id}`)).body.api_scope).toMatchObject({ name: 'Typed', host: 'typed.example.com', path_prefix: '/typed/' });
  });

  it('answers 404 for an unknown id', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      expect(await api(method, '/api_scopes/no-such-scope', method === 'PUT' ? { api_scope: { name: 'X' } } : undefined), method).toEqual({ status: 404, body: { error: 'Not Found' } });
    }
  });

  it('refuses to delete a scope a group uses, naming the group', async () => {
    const scope = await createScope({ name: 'Used', host: 'used.example.com', path_prefix: '/' });
    const group = await api('POST', '/admin_groups', { admin_group: { name: 'Users of it', api_scope_ids: [scope.id], permission_ids: ['analytics'] } });
    const refused = await api('DELETE', `/api_scopes/${scope.id}`);
    expect(refused).toEqual({ status: 422, body: { errors: { base: ['This API scope is used by the admin group "Users of it"; take it out of that group first.'] } } });
    expect((await api('GET', `/api_scopes/${scope.id}`)).status).toBe(200);
    await api('DELETE', `/admin_groups/${group.body.admin_group.id}`);
    expect((await api('DELETE', `/api_scopes/${scope.id}`)).status).toBe(204);
  });

  it('answers an admin without admin_view or admin_manage an empty list, as API Umbrella does, and 403 FORBIDDEN on every other route, reading included, changing nothing', async () => {
    const scope = await createScope({ name: 'Kept', host: 'kept.example.com', path_prefix: '/' });
    const { authToken } = await createScopedAdmin(running.context, { email: 'scoped@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/mine/' }], permissions: ['backend_manage'] });
    for (const path of ['/api_scopes', '/api_scopes.json']) expect(await callAdminApi(running.app, authToken, 'GET', path), path).toEqual({ status: 200, body: EMPTY_LIST });
    const calls = [
      ['POST', '/api_scopes', { api_scope: { name: 'Mine', host: 'api.example.com', path_prefix: '/mine/more/' } }],
      ['GET', `/api_scopes/${scope.id}`],
      ['PUT', `/api_scopes/${scope.id}`, { api_scope: { name: 'Taken over' } }],
      ['DELETE', `/api_scopes/${scope.id}`],
    ] as const;
    for (const [method, path, body] of calls) {
      const refused = await callAdminApi(running.app, authToken, method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.errors).toEqual([{ code: 'FORBIDDEN', message: expect.stringContaining('- api.example.com/mine/') }]);
    }
    expect((await api('GET', `/api_scopes/${scope.id}`)).body.api_scope.name).toBe('Kept');
    expect(running.context.adminGroups.listScopes().some((known) => known.path_prefix === '/mine/more/')).toBe(false);
  });

  it('answers 401 without a token, before anything else', async () => {
    const response = await running.app.inject({ method: 'GET', url: '/api-umbrella/v1/api_scopes' });
    expect(response.statusCode).toBe(401);
  });
});
