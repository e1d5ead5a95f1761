// GET /api-umbrella/v1/user_roles, as API Umbrella's
// web-app/actions/v1/user_roles.lua answers it: {"user_roles":[{"id":…}]},
// every role users hold or backends require for a superuser; for another
// admin, not the roles of backends beyond their user_manage and
// backend_manage scopes, nor Parasol's own but the key creator's
// (api_role_policy.lua).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createScopedAdmin } from '../helpers/scoped-admin.js';
import { draftBackend, backendConfig, HOST } from '../helpers/scoped-backends.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  await gw.createUser({ email: 'holder@example.com', roles: ['user-only', 'shared', 'api-umbrella-key-creator'] });
  await gw.createUser({ email: 'other-holder@example.com', roles: ['shared', 'api-umbrella-system'] });
  await gw.createUser({ email: 'no-roles@example.com', roles: [] });
  draftBackend(gw.context, 'Foo API', ['/foo/'], ['foo-reader']);
  draftBackend(gw.context, 'Bar API', ['/bar/'], ['bar-reader', 'shared']);
  // A role a sub-URL setting requires, and one only the live config still requires.
  gw.context.backends.create(
    { ...backendConfig('Foo private', ['/foo/private/']), sub_settings: [{ id: randomUUID(), http_method: 'any', regex: '^/admin', settings: { ...backendConfig('x', ['/']).settings, required_roles: ['foo-admin'] } }] },
    'root@example.com',
  );
  const live = draftBackend(gw.context, 'Bar old', ['/bar/old/'], ['bar-legacy']);
  gw.context.publisher.publish([live.id], 'root@example.com');
  gw.context.backends.update(live.id, backendConfig('Bar old', ['/bar/old/']), 'root@example.com');
});
afterAll(() => gw.stop());

const ids = (body: { user_roles: { id: string }[] }) => body.user_roles.map((role) => role.id);

describe('GET /user_roles', () => {
  it('gives a superuser every role users hold and draft or live backends require, once each, by name', async () => {
    for (const path of ['/user_roles', '/user_roles.json']) {
      const answer = await gw.adminApi('GET', path);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        user_roles: ['api-umbrella-key-creator', 'api-umbrella-system', 'bar-legacy', 'bar-reader', 'foo-admin', 'foo-reader', 'shared', 'user-only'].map((id) => ({ id })),
      });
    }
  });

  it("gives another admin the roles within their user_manage or backend_manage scopes and those no backend requires, not another team's nor Parasol's own", async () => {
    const foo = await createScopedAdmin(gw.context, { email: 'foo-users@example.com', scopes: [{ host: HOST, path_prefix: '/foo' }], permissions: ['user_manage'] });
    // "shared" is required by the bar team's backend: it stays out of reach, as in API Umbrella.
    expect(ids((await gw.adminApiAs(foo.authToken, 'GET', '/user_roles.json')).body)).toEqual(['api-umbrella-key-creator', 'foo-admin', 'foo-reader', 'user-only']);
    const bar = await createScopedAdmin(gw.context, { email: 'bar-backends@example.com', scopes: [{ host: HOST, path_prefix: '/bar' }], permissions: ['backend_manage'] });
    expect(ids((await gw.adminApiAs(bar.authToken, 'GET', '/user_roles')).body)).toEqual(['api-umbrella-key-creator', 'bar-legacy', 'bar-reader', 'shared', 'user-only']);
    const viewer = await createScopedAdmin(gw.context, { email: 'viewer@example.com', scopes: [{ host: HOST, path_prefix: '/foo' }], permissions: ['user_view'] });
    expect(ids((await gw.adminApiAs(viewer.authToken, 'GET', '/user_roles')).body)).toEqual(['api-umbrella-key-creator', 'user-only']);
  });

  it('answers 403 to an admin whose groups grant nothing about users or backends, and 401 without a token', async () => {
    const analyst = await createScopedAdmin(gw.context, { email: 'analyst@example.com', scopes: [{ host: HOST, path_prefix: '/foo' }], permissions: ['analytics'] });
    const refused = await gw.adminApiAs(analyst.authToken, 'GET', '/user_roles');
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('FORBIDDEN');
    expect((await gw.adminApiAs('not-a-token', 'GET', '/user_roles')).status).toBe(401);
  });
});
