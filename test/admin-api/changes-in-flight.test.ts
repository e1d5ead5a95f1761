// Admin API calls while things change under them, over a real socket: an
// admin's rights taken away while their request's body is still arriving
// (the body is judged by the rights as they are once it is in, not as they
// were when the headers came), and two creations of one admin email at once.
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiScope } from '../../src/admin-groups/model.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createScope, createScopedAdmin, type ScopedAdmin } from '../helpers/scoped-admin.js';

const PASSWORD = 'a long enough passphrase';

let gw: TestGateway;
let weather: ApiScope;
/** admin_manage, user_manage and analytics on api.example.com/weather/. */
let manager: ScopedAdmin;

beforeEach(async () => {
  gw = await startTestGateway();
  weather = createScope(gw.context, 'Weather', 'api.example.com', '/weather/');
  manager = await createScopedAdmin(gw.context, { email: 'manager@example.com', scopes: [weather], permissions: ['admin_manage', 'user_manage', 'analytics'] });
});
afterEach(() => gw.stop());

/**
 * An admin API call whose JSON body is sent in two parts: the headers and
 * the first part, then — once the server has taken the request in and run
 * its first checks — `meanwhile`, then the rest (the caller decides how fast
 * their body arrives).
 */
async function slowCall(method: string, path: string, body: unknown, meanwhile: () => void): Promise<{ status: number; body: any }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${gw.url}/api-umbrella/v1${path}`,
      { method, headers: { 'X-Admin-Auth-Token': manager.authToken, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: data === '' ? null : JSON.parse(data) }));
      },
    );
    req.on('error', reject);
    // The onRequest checks run in the turn the server gets the request; the next turn is after them.
    gw.server.once('request', () =>
      setImmediate(() => {
        meanwhile();
        req.end(text.slice(10));
      }),
    );
    req.write(text.slice(0, 10));
  });
}

describe('a call whose body arrives after the admin lost their rights', () => {
  it('is refused when the admin was disabled meanwhile, and makes no admin', async () => {
    const created = await slowCall('POST', '/admins', { admin: { email: 'backdoor@example.com', password: PASSWORD, group_ids: [manager.groupId] } }, () => {
      gw.context.admins.update(manager.admin.id, { enabled: false });
    });
    expect(created.status, JSON.stringify(created.body)).toBe(401);
    expect(gw.context.admins.findByEmail('backdoor@example.com')).toBeNull();
  });

  it('is refused when the admin token was regenerated meanwhile', async () => {
    const created = await slowCall('POST', '/admins', { admin: { email: 'leaked@example.com', password: PASSWORD, group_ids: [manager.groupId] } }, () => {
      gw.context.admins.regenerateToken(manager.admin.id);
    });
    expect(created.status).toBe(401);
    expect(gw.context.admins.findByEmail('leaked@example.com')).toBeNull();
  });

  it('is refused when the permission was taken away meanwhile, and changes nothing', async () => {
    const group = gw.context.adminGroups.getGroup(manager.groupId)!;
    const restored = await slowCall('PUT', `/admin_groups/${group.id}`, { admin_group: { permission_ids: ['admin_manage', 'user_manage', 'analytics'] } }, () => {
      gw.context.adminGroups.updateGroup(group.id, { name: group.name, api_scope_ids: group.api_scope_ids, permission_ids: ['analytics'] });
    });
    expect(restored.status).toBe(403);
    expect(gw.context.adminGroups.getGroup(group.id)!.permission_ids).toEqual(['analytics']);
  });

  it('is refused by the signup API too when user_manage was taken away meanwhile', async () => {
    const group = gw.context.adminGroups.getGroup(manager.groupId)!;
    const created = await slowCall('POST', '/users', { user: { email: 'late@example.com', first_name: 'L', last_name: 'U' } }, () => {
      gw.context.adminGroups.updateGroup(group.id, { name: group.name, api_scope_ids: group.api_scope_ids, permission_ids: ['analytics'] });
    });
    expect(created.status).toBe(403);
    expect(gw.context.users.list({ search: 'late@example.com' }).total).toBe(0);
  });
});

describe('two admins added at once with one email', () => {
  it('answer 201 and 422, not 500 (the email is taken while the password is hashed)', async () => {
    const post = () => gw.adminApiAs(manager.authToken, 'POST', '/admins', { admin: { email: 'twice@example.com', password: PASSWORD, group_ids: [manager.groupId] } });
    const answers = await Promise.all([post(), post()]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422]);
    expect(answers.find((answer) => answer.status === 422)!.body).toEqual({
      errors: [{ code: 'INVALID_INPUT', field: 'email', message: 'has already been taken', full_message: 'Email: has already been taken' }],
    });
  });
});
