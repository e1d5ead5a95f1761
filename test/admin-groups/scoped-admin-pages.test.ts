// The web admin under admin groups: the menu shows what the admin may open,
// /admin/ leads to the first such page, and API users are read-only without
// user_manage.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_SETTINGS, type ApiBackendConfig } from '../../src/api-backends/model.js';
import { AdminClient, createAdmin, menuOf, startAdminApp, textOf, type AdminApp } from '../admin-ui/helpers/admin-client.js';
import { createScopedAdmin, SCOPED_PASSWORD } from '../helpers/scoped-admin.js';
import { apiUserInput } from '../helpers/users.js';

const SCOPE = { host: 'api.example.com', path_prefix: '/a/' };

let running: AdminApp;
beforeAll(async () => {
  running = await startAdminApp();
  await createAdmin(running.context, 'root@example.com');
});
afterAll(() => running.close());

async function signedIn(email: string): Promise<AdminClient> {
  const client = new AdminClient(running.app);
  await client.signIn(email, SCOPED_PASSWORD);
  return client;
}

describe('an admin in no group', () => {
  it('lands on My Account, told why, with a menu of nothing but the account', async () => {
    await createAdmin(running.context, 'bare@example.com', false);
    const client = await signedIn('bare@example.com');
    const start = await client.get('/admin/');
    expect(start.headers.location).toBe('/admin/account');
    const account = await client.follow(start);
    expect(textOf(account.body)).toContain('Your account has no permissions yet');
    expect(menuOf(account.body)).toEqual(['/admin/account']);
    for (const path of ['/admin/apis', '/admin/config/publish', '/admin/api_users', '/admin/analytics/logs', '/admin/admins', '/admin/api_scopes', '/admin/admin_groups']) {
      const page = await client.get(path);
      expect(page.statusCode, path).toBe(403);
      expect(textOf(page.body)).toContain('You are not authorized for any APIs yet.');
    }
  });
});

describe('an admin who may view API users', () => {
  it('starts at API Users, sees them without the means to change them, and is refused changes', async () => {
    await createScopedAdmin(running.context, { email: 'looker@example.com', scopes: [SCOPE], permissions: ['user_view'] });
    const { user } = running.context.users.create(apiUserInput({ email: 'seen@example.com' }), 'test');
    const client = await signedIn('looker@example.com');
    const start = await client.get('/admin/');
    expect(start.headers.location).toBe('/admin/api_users');
    const list = await client.follow(start);
    expect(menuOf(list.body)).toEqual(['/admin/api_users', '/admin/account']);
    expect(textOf(list.body)).toContain('seen@example.com');
    expect(list.body).not.toContain('/admin/api_users/new');

    const page = await client.get(`/admin/api_users/${user.id}`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('You may view API users, not change them.');
    // One holding a role of the admin's own scope reads the same, not as another team's.
    const { user: ours } = running.context.users.create(apiUserInput({ email: 'ours@example.com', roles: ['team-a'] }), 'test');
    running.context.backends.create({ ...foreignBackend(), name: 'Team A', url_matches: [{ id: randomUUID(), frontend_prefix: '/a/x/', backend_prefix: '/' }], settings: { ...EMPTY_SETTINGS, required_roles: ['team-a'] } }, 'test');
    expect(textOf((await client.get(`/admin/api_users/${ours.id}`)).body)).toContain('You may view API users, not change them.');
    expect(page.body).toContain('<fieldset class="plain" disabled>');
    expect(page.body).not.toContain('regenerate_key');
    expect(page.body).not.toContain('>Save</button>');

    const refused = await client.post(`/admin/api_users/${user.id}`, { email: 'changed@example.com', first_name: 'C', last_name: 'D' });
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain('- api.example.com/a/');
    expect((await client.get('/admin/api_users/new')).statusCode).toBe(403);
    expect((await client.post(`/admin/api_users/${user.id}/regenerate_key`, { previous_key_grace: '' })).statusCode).toBe(403);
    expect(running.context.users.get(user.id)?.email).toBe('seen@example.com');
  });
});

describe('an admin who manages API users', () => {
  it('cannot give a role a backend outside their scopes requires, and keeps what they typed', async () => {
    await createScopedAdmin(running.context, { email: 'keeper@example.com', scopes: [SCOPE], permissions: ['user_view', 'user_manage'] });
    running.context.backends.create(foreignBackend(), 'test');
    const client = await signedIn('keeper@example.com');
    await client.get('/admin/api_users/new');
    const refused = await client.post('/admin/api_users', { email: 'typed@example.com', first_name: 'Typed', last_name: 'In', roles: 'other-team' });
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain('You are not authorized to give or take the role "other-team"');
    expect(refused.body).toContain('value="typed@example.com"');
    expect(running.context.users.list({ search: 'typed@', now: Date.now() }).total).toBe(0);
  });
});

describe('an admin who manages API users and may not view them', () => {
  it("sees them, in the menu too, and finds another team's user read-only, its key not to be regenerated", async () => {
    await createScopedAdmin(running.context, { email: 'manager@example.com', scopes: [SCOPE], permissions: ['user_manage'] });
    if (!running.context.backends.list().some((api) => api.name === 'Other team')) running.context.backends.create(foreignBackend(), 'test');
    const { user, apiKey } = running.context.users.create(apiUserInput({ email: 'theirs@example.com', roles: ['other-team'] }), 'test');
    const client = await signedIn('manager@example.com');
    const page = await client.get(`/admin/api_users/${user.id}`);
    expect(menuOf(page.body)).toEqual(['/admin/api_users', '/admin/account']);
    expect(textOf(page.body)).toContain('You are not authorized to change this API user or its key: it holds the role "other-team"');
    expect(page.body).toContain('<fieldset class="plain" disabled>');
    expect(page.body).not.toContain('regenerate_key');
    const regenerated = await client.post(`/admin/api_users/${user.id}/regenerate_key`, { previous_key_grace: '' });
    expect(regenerated.statusCode).toBe(403);
    expect(regenerated.body).not.toContain('data-testid="api-key"');
    expect(running.context.keyIndex.find(apiKey)?.user.id).toBe(user.id);
  });
});

describe('a superuser', () => {
  it('sees every menu entry, API scopes and admin groups included', async () => {
    const client = new AdminClient(running.app);
    await client.signIn('root@example.com');
    const page = await client.get('/admin/apis');
    expect(menuOf(page.body)).toEqual([
      '/admin/apis',
      '/admin/config/publish',
      '/admin/analytics/logs',
      '/admin/analytics/users',
      '/admin/analytics/locations',
      '/admin/analytics/drilldown',
      '/admin/api_users',
      '/admin/admins',
      '/admin/api_scopes',
      '/admin/admin_groups',
      '/admin/account',
    ]);
  });
});

/** A draft backend of another team, at /b/, that requires the role other-team. */
function foreignBackend(): ApiBackendConfig {
  return {
    name: 'Other team',
    frontend_host: 'api.example.com',
    backend_host: 'backend.internal',
    backend_protocol: 'http',
    balance_algorithm: 'least_conn',
    servers: [{ id: randomUUID(), host: '10.0.0.1', port: 80 }],
    url_matches: [{ id: randomUUID(), frontend_prefix: '/b/', backend_prefix: '/' }],
    settings: { ...EMPTY_SETTINGS, required_roles: ['other-team'] },
    sub_settings: [],
    rewrites: [],
  };
}
