// API users under admin groups: user_view reads them, user_manage changes
// them, and nobody but a superuser gives or takes a role that an API
// backend outside their scopes requires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_LIST } from '../helpers/admin-api.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createScopedAdmin } from '../helpers/scoped-admin.js';

const AGENCY_A = { host: 'api.example.com', path_prefix: '/a/' };

let gw: TestGateway;
let viewer: string;
let manager: string;
let nobody: string;

beforeAll(async () => {
  gw = await startTestGateway();
  viewer = (await createScopedAdmin(gw.context, { email: 'viewer@example.com', scopes: [AGENCY_A], permissions: ['user_view'] })).authToken;
  manager = (await createScopedAdmin(gw.context, { email: 'manager@example.com', scopes: [AGENCY_A], permissions: ['user_view', 'user_manage'] })).authToken;
  nobody = (await gw.context.admins.create({ email: 'nobody@example.com', password: 'correct horse battery staple', superuser: false }))!.authToken;
  for (const [name, prefix, role] of [['A', '/a/', 'agency-a'], ['B', '/b/', 'agency-b']] as const) {
    const created = await gw.adminApi('POST', '/apis', {
      api: { name, frontend_host: 'api.example.com', backend_host: 'example.com', servers: [{ host: '127.0.0.1', port: 8081 }], url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }], settings: { required_roles: [role] } },
    });
    expect(created.status).toBe(201);
  }
});
afterAll(() => gw.stop());

const call = (token: string, method: string, path: string, body?: unknown) => gw.adminApiAs(token, method, path, body);

describe('the admin API', () => {
  it('answers an admin in no group an empty list of API users and refuses them everything else about them, as API Umbrella does', async () => {
    const { id } = await gw.createUser();
    const list = await call(nobody, 'GET', '/users?draw=4');
    expect({ status: list.status, body: list.body }).toEqual({ status: 200, body: { ...EMPTY_LIST, draw: 4 } });
    for (const [method, path] of [['GET', `/users/${id}`], ['PUT', `/users/${id}`], ['POST', `/users/${id}/regenerate_key`], ['POST', '/users']] as const) {
      const answer = await call(nobody, method, path, method === 'GET' ? undefined : { user: { email: 'x@example.com', first_name: 'X', last_name: 'Y' } });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.errors[0].code).toBe('FORBIDDEN');
      expect(answer.body.errors[0].message).toContain('You are not authorized to perform this action.');
    }
  });

  it('lets user_view read and not change', async () => {
    const { id, apiKey } = await gw.createUser({ email: 'readable@example.com' });
    expect((await call(viewer, 'GET', '/users?search=readable')).body.data.map((user: { email: string }) => user.email)).toEqual(['readable@example.com']);
    expect((await call(viewer, 'GET', `/users/${id}.json`)).body.user.email).toBe('readable@example.com');
    const refused = await call(viewer, 'PUT', `/users/${id}`, { user: { enabled: false } });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].message).toContain('- api.example.com/a/');
    expect((await call(viewer, 'POST', `/users/${id}/regenerate_key`)).status).toBe(403);
    expect((await call(viewer, 'DELETE', `/users/${id}/previous_api_key`)).status).toBe(403);
    expect((await call(viewer, 'POST', '/users', { user: { email: 'new@example.com', first_name: 'N', last_name: 'U' } })).status).toBe(403);
    expect(gw.context.keyIndex.find(apiKey)?.user.enabled).toBe(true);
  });

  it('lets user_manage create and change users, with roles of its own backends and the key creator\'s', async () => {
    const created = await call(manager, 'POST', '/users', { user: { email: 'made@example.com', first_name: 'M', last_name: 'U', roles: ['agency-a', 'api-umbrella-key-creator', 'free-form'] } });
    expect(created.status).toBe(201);
    expect(created.body.user.roles).toEqual(['agency-a', 'api-umbrella-key-creator', 'free-form']);
    const updated = await call(manager, 'PUT', `/users/${created.body.user.id}`, { user: { enabled: false, roles: ['agency-a'] } });
    expect(updated.status).toBe(200);
    expect(updated.body.user).toMatchObject({ enabled: false, roles: ['agency-a'] });
  });

  it('refuses giving or taking a role another team\'s backend requires, or a Parasol role, and leaves the user as it was', async () => {
    const { id } = await gw.createUser({ email: 'roles@example.com', roles: ['agency-b'] });
    const taking = await call(manager, 'PUT', `/users/${id}`, { user: { roles: [] } });
    expect(taking.status).toBe(403);
    expect(taking.body.errors[0].message).toContain('"agency-b"');
    const giving = await call(manager, 'POST', '/users', { user: { email: 'sneaky@example.com', first_name: 'S', last_name: 'U', roles: ['agency-b'] } });
    expect(giving.status).toBe(403);
    expect((await call(manager, 'POST', '/users', { user: { email: 'sneaky2@example.com', first_name: 'S', last_name: 'U', roles: ['api-umbrella-admin'] } })).status).toBe(403);
    expect(gw.context.users.list({ search: 'sneaky', now: Date.now() }).total).toBe(0);
    // Not even a change that leaves the foreign role where it is: the user is another team's.
    const kept = await call(manager, 'PUT', `/users/${id}`, { user: { first_name: 'Renamed', roles: ['agency-b', 'agency-a'] } });
    expect(kept.status).toBe(403);
    expect(gw.context.users.get(id)?.roles).toEqual(['agency-b']);
    // A superuser is not limited.
    expect((await gw.adminApi('PUT', `/users/${id}`, { user: { roles: [] } })).status).toBe(200);
  });

  it("refuses changing a user, or its key, that holds another team's role: a new key would open that team's API to the admin", async () => {
    const { id, apiKey } = await gw.createUser({ email: 'bar-service@example.com', roles: ['agency-b'] });
    const held = 'You are not authorized to change this API user or its key: it holds the role "agency-b"';
    for (const [method, path, body] of [
      ['POST', `/users/${id}/regenerate_key`, { previous_api_key_expires_at: new Date(Date.now() + 86_400_000).toISOString() }],
      ['PUT', `/users/${id}`, { user: { email: 'mine-now@example.com' } }],
      ['DELETE', `/users/${id}/previous_api_key`, undefined],
    ] as const) {
      const refused = await call(manager, method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.errors[0].message).toContain(held);
    }
    // Whatever the body: refused before it is judged.
    expect((await call(manager, 'PUT', `/users/${id}`, { user: { email: 'not an email' } })).status).toBe(403);
    expect(gw.context.users.get(id)?.email).toBe('bar-service@example.com');
    expect(gw.context.keyIndex.find(apiKey)?.user.id).toBe(id);
    // Reading it stays allowed, as for every user.
    expect((await call(manager, 'GET', `/users/${id}`)).status).toBe(200);
  });

  it('judges roles against the live config too: a role only the published backend still requires is refused', async () => {
    const liveId = await gw.publishBackend({
      name: 'C', frontend_host: 'api.example.com', backend_host: 'example.com', servers: [{ host: '127.0.0.1', port: 8081 }],
      url_matches: [{ frontend_prefix: '/c/', backend_prefix: '/' }], settings: { required_roles: ['agency-c'] },
    });
    expect((await gw.adminApi('PUT', `/apis/${liveId}`, { api: { settings: { required_roles: ['agency-c-next'] } } })).status).toBe(204);
    const refused = await call(manager, 'POST', '/users', { user: { email: 'early@example.com', first_name: 'E', last_name: 'A', roles: ['agency-c'] } });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].message).toContain('"agency-c"');
  });

  it('lets an admin who may manage users and not view them see them too', async () => {
    const { authToken } = await createScopedAdmin(gw.context, { email: 'manage-only@example.com', scopes: [AGENCY_A], permissions: ['user_manage'] });
    const { id } = await gw.createUser({ email: 'manageable@example.com' });
    expect((await call(authToken, 'GET', `/users/${id}`)).body.user.email).toBe('manageable@example.com');
    expect((await call(authToken, 'PUT', `/users/${id}`, { user: { first_name: 'Managed' } })).status).toBe(200);
  });

  it('answers 403, not 400 or 422, when the admin may not call the route whatever the body', async () => {
    const malformed = await fetch(`${gw.url}/api-umbrella/v1/apis`, { method: 'POST', headers: { 'X-Admin-Auth-Token': nobody, 'Content-Type': 'application/json' }, body: '{"api":' });
    expect(malformed.status).toBe(403);
    expect((await call(viewer, 'POST', '/users', { user: { email: 'not an email' } })).status).toBe(403);
    const malformedSignup = await fetch(`${gw.url}/api-umbrella/v1/users.json`, { method: 'POST', headers: { 'X-Admin-Auth-Token': viewer, 'Content-Type': 'application/json' }, body: '{"user":' });
    expect(malformedSignup.status).toBe(403);
  });
});
