// GET /admin/auth answers JSON as API Umbrella's does (its
// test/apis/admin/test_auth.rb), with the fields Parasol has: never a
// redirect to the sign-in page, never a token.
import { afterEach, describe, expect, it } from 'vitest';
import { createGroup, createMember, createScope, SCOPED_PASSWORD } from '../helpers/scoped-admin.js';
import { AdminClient, createAdmin, startAdminApp, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp;
afterEach(() => running.close());

const PERMISSIONS = ['admin_manage', 'admin_view', 'analytics', 'backend_manage', 'backend_publish', 'user_manage', 'user_view'];

describe('GET /admin/auth', () => {
  it('answers {"authenticated":false} without a session, with or without .json, also before the first admin', async () => {
    running = await startAdminApp();
    const client = new AdminClient(running.app);
    for (const url of ['/admin/auth', '/admin/auth.json']) {
      const fresh = await client.get(url);
      expect([fresh.statusCode, fresh.json()]).toEqual([200, { authenticated: false }]);
    }
    await createAdmin(running.context);
    const answer = await client.get('/admin/auth');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.json()).toEqual({ authenticated: false });
    expect((await client.get('/admin/auth', { cookie: 'parasol_admin_session=ended' })).json()).toEqual({ authenticated: false });
  });

  it("answers a signed-in superuser with API Umbrella's fields Parasol has, every permission true, no token or key; kept out of caches and frames", async () => {
    running = await startAdminApp({ analytics: { timezone: 'America/Denver' } });
    const admin = await createAdmin(running.context);
    const client = new AdminClient(running.app);
    await client.signIn();
    const answer = await client.get('/admin/auth');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.json()).toEqual({
      authenticated: true,
      admin: { id: admin.id, email: 'ops@example.com', username: 'ops@example.com', superuser: true, permissions: Object.fromEntries(PERMISSIONS.map((id) => [id, true])) },
      analytics_timezone: 'America/Denver',
      username_is_email: true,
      local_auth_enabled: true,
      password_length_min: 14,
    });

    await client.get('/admin/logout');
    await client.post('/admin/logout');
    expect((await client.get('/admin/auth')).json()).toEqual({ authenticated: false });
  });

  it('answers an admin of groups each permission they hold somewhere as true, the others false', async () => {
    running = await startAdminApp();
    await createAdmin(running.context);
    const scope = createScope(running.context, 'Weather', 'api.example.com', '/weather/');
    const group = createGroup(running.context, 'Weather analysts', [scope], ['analytics', 'user_view']);
    const member = await createMember(running.context, 'analyst@example.com', [group.id]);
    const client = new AdminClient(running.app);
    await client.signIn('analyst@example.com', SCOPED_PASSWORD);
    const { admin } = (await client.get('/admin/auth')).json();
    expect(admin).toMatchObject({ id: member.id, superuser: false });
    expect(admin.permissions).toEqual(Object.fromEntries(PERMISSIONS.map((id) => [id, id === 'analytics' || id === 'user_view'])));
  });
});
