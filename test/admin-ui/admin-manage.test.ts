// admin_manage in the web admin: the holder's menu, and Users › API Scopes,
// Admin Groups and Admin Accounts limited to the scopes where their groups
// grant admin_manage. Two teams: the manager's (admin_manage and analytics on
// /weather/) and traffic's (analytics on /traffic/).
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiScope } from '../../src/admin-groups/model.js';
import type { Admin } from '../../src/admins/repository.js';
import { createGroup, createMember, createScope, createScopedAdmin, SCOPED_PASSWORD, type ScopedAdmin } from '../helpers/scoped-admin.js';
import { AdminClient, checkbox, menuOf, PASSWORD, startSignedIn, textOf, type AdminApp } from './helpers/admin-client.js';

const HOST = 'api.example.com';

let running: AdminApp;
/** Signed in as the superuser ops@example.com. */
let root: AdminClient;
let weather: ApiScope;
let traffic: ApiScope;
let radar: ApiScope;
/** admin_manage and analytics on api.example.com/weather/. */
let manager: ScopedAdmin;
/** Another team: analytics on api.example.com/traffic/. */
let trafficTeam: ScopedAdmin;
/** Signed in as the manager. */
let client: AdminClient;

beforeEach(async () => {
  ({ running, client: root } = await startSignedIn());
  weather = createScope(running.context, 'Weather', HOST, '/weather/');
  traffic = createScope(running.context, 'Traffic', HOST, '/traffic/');
  radar = createScope(running.context, 'Radar', HOST, '/weather/radar/');
  manager = await createScopedAdmin(running.context, { email: 'manager@example.com', scopes: [weather], permissions: ['admin_manage', 'analytics'] });
  trafficTeam = await createScopedAdmin(running.context, { email: 'traffic@example.com', scopes: [traffic], permissions: ['analytics'] });
  client = await signedIn('manager@example.com');
});
afterEach(() => running.close());

async function signedIn(email: string): Promise<AdminClient> {
  const signed = new AdminClient(running.app);
  await signed.signIn(email, SCOPED_PASSWORD);
  return signed;
}

/**
 * Posts a form after loading My Account, which every admin may open, for a
 * fresh CSRF token: a 403 is then the refusal, not an expired form.
 */
async function submit(as: AdminClient, path: string, fields: Record<string, string | string[]>): Promise<LightMyRequestResponse> {
  await as.get('/admin/account');
  return as.post(path, fields);
}

function expectRefused(response: LightMyRequestResponse, what = ''): void {
  expect(response.statusCode, what).toBe(403);
  expect(textOf(response.body), what).not.toContain('This form has expired');
}

describe('the menu', () => {
  it('shows an admin_manage holder Admin Accounts, API Scopes and Admin Groups', async () => {
    const page = await client.get('/admin/account');
    expect(menuOf(page.body)).toEqual([
      '/admin/analytics/logs',
      '/admin/analytics/users',
      '/admin/analytics/locations',
      '/admin/analytics/drilldown',
      '/admin/admins',
      '/admin/api_scopes',
      '/admin/admin_groups',
      '/admin/account',
    ]);
  });

  it('shows an admin_view holder Admin Accounts, API Scopes and Admin Groups, as API Umbrella does', async () => {
    await createScopedAdmin(running.context, { email: 'viewer@example.com', scopes: [weather], permissions: ['admin_view'] });
    const viewer = await signedIn('viewer@example.com');
    expect(menuOf((await viewer.get('/admin/admins')).body)).toEqual(['/admin/admins', '/admin/api_scopes', '/admin/admin_groups', '/admin/account']);
    expect(textOf((await viewer.get('/admin/admins')).body)).not.toContain('Add Admin');
  });
});

describe('API Scopes and Admin Groups for an admin_view holder', () => {
  /** admin_view alone on api.example.com/weather/. */
  let viewerTeam: ScopedAdmin;
  let viewer: AdminClient;
  beforeEach(async () => {
    viewerTeam = await createScopedAdmin(running.context, { email: 'viewer@example.com', scopes: [weather], permissions: ['admin_view'] });
    viewer = await signedIn('viewer@example.com');
  });

  it('lists the scopes within their scopes, not another team\'s, and opens one read-only', async () => {
    const list = await viewer.get('/admin/api_scopes');
    expect(list.statusCode).toBe(200);
    const text = textOf(list.body);
    expect(text).toContain('Weather api.example.com /weather/');
    expect(text).toContain('Radar api.example.com /weather/radar/');
    expect(text).not.toContain('/traffic/');
    expect(text).not.toContain('Add API Scope');
    expect(list.body).toContain(`href="/admin/api_scopes/${radar.id}/edit"`);
    expect(list.body).not.toContain(`/admin/api_scopes/${radar.id}/delete`);

    const page = await viewer.get(`/admin/api_scopes/${radar.id}/edit`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('You may view API scopes, not change them.');
    expect(page.body).toContain('<fieldset class="plain" disabled>');
    expect(page.body).toContain('value="/weather/radar/"');
    expect(page.body).not.toContain('>Save</button>');
    expect(textOf(page.body)).not.toContain('Delete');

    const outside = await viewer.get(`/admin/api_scopes/${traffic.id}/edit`);
    expect(outside.statusCode).toBe(403);
    expect(textOf(outside.body)).toContain('You are only authorized to perform actions for APIs in the following areas: - api.example.com/weather/');
    for (const path of ['/admin/api_scopes/new', `/admin/api_scopes/${radar.id}/delete`]) expect((await viewer.get(path)).statusCode, path).toBe(403);
    expectRefused(await submit(viewer, `/admin/api_scopes/${radar.id}`, { name: 'Taken over', host: HOST, path_prefix: '/weather/radar/' }), 'save');
    expectRefused(await submit(viewer, '/admin/api_scopes', { name: 'Satellite', host: HOST, path_prefix: '/weather/satellite/' }), 'add');
    expectRefused(await submit(viewer, `/admin/api_scopes/${radar.id}/delete`, {}), 'delete');
    expect(running.context.adminGroups.getScope(radar.id)!.name).toBe('Radar');
    expect(running.context.adminGroups.listScopes()).toHaveLength(3);
  });

  it('lists the groups wholly within their scopes, with their admins, not another team\'s, and opens one read-only', async () => {
    const mixed = createGroup(running.context, 'Mixed team', [radar, traffic], ['analytics']);
    const list = await viewer.get('/admin/admin_groups');
    expect(list.statusCode).toBe(200);
    const text = textOf(list.body);
    expect(text).toMatch(/group of manager@example\.com Weather api\.example\.com\/weather\/ Admin Accounts - Manage Analytics manager@example\.com View/);
    expect(text).toContain('group of viewer@example.com');
    expect(text).not.toContain('traffic');
    expect(text).not.toContain('Mixed team');
    expect(text).not.toContain('Add Admin Group');
    expect(list.body).not.toContain(`/admin/admin_groups/${manager.groupId}/delete`);

    const page = await viewer.get(`/admin/admin_groups/${manager.groupId}/edit`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('You may view admin groups, not change them.');
    expect(page.body).toContain('<fieldset class="plain" disabled>');
    expect(checkbox(page.body, 'api_scope_ids', weather.id)).toBe('checked');
    expect(checkbox(page.body, 'api_scope_ids', traffic.id)).toBe('absent');
    expect(checkbox(page.body, 'permission_ids', 'admin_manage')).toBe('checked');
    expect(checkbox(page.body, 'permission_ids', 'user_view')).toBe('unchecked');
    expect(page.body).not.toContain('>Save</button>');

    for (const id of [mixed.id, trafficTeam.groupId]) expect((await viewer.get(`/admin/admin_groups/${id}/edit`)).statusCode, id).toBe(403);
    for (const path of ['/admin/admin_groups/new', `/admin/admin_groups/${manager.groupId}/delete`]) expect((await viewer.get(path)).statusCode, path).toBe(403);
    expectRefused(await submit(viewer, `/admin/admin_groups/${viewerTeam.groupId}`, { name: 'Everything', api_scope_ids: weather.id, permission_ids: ['admin_view', 'admin_manage'] }), 'save');
    expectRefused(await submit(viewer, '/admin/admin_groups', { name: 'Mine', api_scope_ids: weather.id, permission_ids: 'analytics' }), 'add');
    expectRefused(await submit(viewer, `/admin/admin_groups/${manager.groupId}/delete`, {}), 'delete');
    expect(running.context.adminGroups.getGroup(viewerTeam.groupId)!.permission_ids).toEqual(['admin_view']);
    expect(running.context.adminGroups.getGroup(manager.groupId)).not.toBeNull();
    expect(running.context.adminGroups.listGroups()).toHaveLength(4);
  });
  it('searches only the scopes and groups they are shown', async () => {
    createGroup(running.context, 'Mixed weather', [radar, traffic], ['analytics']);
    const scopes = textOf((await viewer.get('/admin/api_scopes?search=api.example.com')).body);
    expect(scopes).toContain('Weather api.example.com /weather/');
    expect(scopes).toContain('Radar api.example.com /weather/radar/');
    expect(scopes).not.toContain('Traffic');
    expect(textOf((await viewer.get('/admin/api_scopes?search=traffic')).body)).toContain('No API scopes match “traffic”');
    const groups = textOf((await viewer.get('/admin/admin_groups?search=GROUP+OF')).body);
    expect(groups).toContain('group of manager@example.com');
    expect(groups).toContain('group of viewer@example.com');
    expect(groups).not.toContain('group of traffic@example.com');
    expect(textOf((await viewer.get('/admin/admin_groups?search=mixed')).body)).toContain('No admin groups match “mixed”');
  });

  it("lists a group's admins on its page without links to accounts they may not change, and offers no Duplicate", async () => {
    const page = await viewer.get(`/admin/admin_groups/${manager.groupId}/edit`);
    expect(textOf(page.body)).toContain('Admins manager@example.com (last sign-in:');
    expect(page.body).not.toContain(`/admin/admins/${manager.admin.id}/edit`);
    expect(page.body).not.toContain('Duplicate Admin Group');
    expect(page.body).not.toContain('duplicate_id');
    expect((await viewer.get(`/admin/admin_groups/new?duplicate_id=${manager.groupId}`)).statusCode).toBe(403);
  });

  it('with admin_manage too, opens read-only a group on their ground granting what they lack, saying why', async () => {
    running.context.adminGroups.updateGroup(manager.groupId, { name: 'group of manager@example.com', api_scope_ids: [weather.id], permission_ids: ['admin_view', 'admin_manage', 'analytics'] });
    const publishers = createGroup(running.context, 'Weather publishers', [weather], ['backend_publish']);
    const list = await client.get('/admin/admin_groups');
    expect(textOf(list.body)).toContain('Weather publishers');
    expect(list.body).not.toContain(`/admin/admin_groups/${publishers.id}/delete`);
    const page = await client.get(`/admin/admin_groups/${publishers.id}/edit`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('It grants what you do not hold in its API scopes (backend_publish): you may view it, not change it.');
    expect(page.body).not.toContain('>Save</button>');
    expectRefused(await submit(client, `/admin/admin_groups/${publishers.id}/delete`, {}));
    expect(running.context.adminGroups.getGroup(publishers.id)).not.toBeNull();
  });
});

describe('API Scopes for an admin_manage holder', () => {
  it('lists and adds scopes within their scopes only, and refuses another team\'s scope', async () => {
    const list = await client.get('/admin/api_scopes');
    expect(list.statusCode).toBe(200);
    expect(textOf(list.body)).toContain('Radar api.example.com /weather/radar/');
    expect(textOf(list.body)).not.toContain('/traffic/');
    for (const path of [`/admin/api_scopes/${traffic.id}/edit`, `/admin/api_scopes/${traffic.id}/delete`]) expect((await client.get(path)).statusCode, path).toBe(403);

    expectRefused(await submit(client, `/admin/api_scopes/${traffic.id}`, { name: 'Taken over', host: HOST, path_prefix: '/traffic/' }));
    expectRefused(await submit(client, '/admin/api_scopes', { name: 'Traffic more', host: HOST, path_prefix: '/traffic/more/' }));
    expect(running.context.adminGroups.getScope(traffic.id)!.name).toBe('Traffic');
    expect(running.context.adminGroups.listScopes()).toHaveLength(3);

    await client.get('/admin/api_scopes/new');
    const added = await client.post('/admin/api_scopes', { name: 'Satellite', host: HOST, path_prefix: '/weather/satellite/' });
    expect(added.statusCode).toBe(303);
    expect(running.context.adminGroups.listScopes().some((known) => known.path_prefix === '/weather/satellite/')).toBe(true);
  });
  it("counts, but does not name, another team's groups using one of their scopes, also when refusing to delete it", async () => {
    createGroup(running.context, 'Mixed team', [radar, traffic], ['analytics']);
    const list = textOf((await client.get('/admin/api_scopes')).body);
    expect(list).toMatch(/Radar api\.example\.com \/weather\/radar\/ 1 other/);
    expect(list).not.toContain('Mixed team');
    expect(textOf((await client.get(`/admin/api_scopes/${radar.id}/delete`)).body)).toContain('used by 1 admin group you do not manage');
    const refused = await client.follow(await submit(client, `/admin/api_scopes/${radar.id}/delete`, {}));
    expect(textOf(refused.body)).toContain('This API scope is used by 1 admin group you do not manage; take it out of that group first.');
    expect(running.context.adminGroups.getScope(radar.id)).not.toBeNull();
  });
});

describe('Admin Groups for an admin_manage holder', () => {
  it('offers only the scopes within their scopes, and adds a group on one', async () => {
    createGroup(running.context, 'Mixed team', [weather, traffic], ['analytics']);
    const form = await client.get('/admin/admin_groups/new');
    expect(form.statusCode).toBe(200);
    expect(checkbox(form.body, 'api_scope_ids', weather.id)).toBe('unchecked');
    expect(checkbox(form.body, 'api_scope_ids', radar.id)).toBe('unchecked');
    expect(checkbox(form.body, 'api_scope_ids', traffic.id)).toBe('absent');

    const added = await client.post('/admin/admin_groups', { name: 'Radar team', api_scope_ids: radar.id, permission_ids: 'analytics' });
    expect(added.statusCode).toBe(303);
    expect(running.context.adminGroups.listGroups().find((known) => known.name === 'Radar team')).toMatchObject({ api_scope_ids: [radar.id], permission_ids: ['analytics'] });
    // The list shows the groups wholly within their scopes, not another team's nor a mixed one.
    const list = textOf((await client.follow(added)).body);
    expect(list).toContain('Radar team');
    expect(list).toContain('group of manager@example.com');
    expect(list).not.toContain('group of traffic@example.com');
    expect(list).not.toContain('Mixed team');
  });

  it('refuses a group outside their reach, or granting what they do not hold, showing the form again with the reason', async () => {
    await client.get('/admin/admin_groups/new');
    const outside = await client.post('/admin/admin_groups', { name: 'Sneaky', api_scope_ids: traffic.id, permission_ids: 'analytics' });
    expectRefused(outside);
    expect(outside.body).toContain('action="/admin/admin_groups"');
    expect(outside.body).toContain('value="Sneaky"');
    expect(textOf(outside.body)).toMatch(/not authorized/i);

    const escalating = await client.post('/admin/admin_groups', { name: 'Publishers', api_scope_ids: weather.id, permission_ids: 'backend_publish' });
    expectRefused(escalating);
    expect(escalating.body).toContain('value="Publishers"');
    expect(textOf(escalating.body)).toContain('backend_publish');
    expect(running.context.adminGroups.listGroups().map((known) => known.name).sort()).toEqual(['group of manager@example.com', 'group of traffic@example.com']);
  });

  it('refuses to edit or delete a group outside their reach, or to move one of theirs out of it, changing nothing', async () => {
    const radarTeam = createGroup(running.context, 'Radar team', [radar], ['analytics']);
    const trafficGroup = running.context.adminGroups.getGroup(trafficTeam.groupId)!;
    // Their own team's group they may open: the refusals below are about reach, not a blanket no.
    expect((await client.get(`/admin/admin_groups/${radarTeam.id}/edit`)).statusCode).toBe(200);
    for (const path of [`/admin/admin_groups/${trafficTeam.groupId}/edit`, `/admin/admin_groups/${trafficTeam.groupId}/delete`]) expect((await client.get(path)).statusCode, path).toBe(403);
    expectRefused(await submit(client, `/admin/admin_groups/${trafficTeam.groupId}`, { name: 'Taken over', api_scope_ids: weather.id, permission_ids: 'analytics' }));
    expectRefused(await submit(client, `/admin/admin_groups/${trafficTeam.groupId}/delete`, {}));
    expectRefused(await submit(client, `/admin/admin_groups/${radarTeam.id}`, { name: 'Radar team', api_scope_ids: [radar.id, traffic.id], permission_ids: 'analytics' }));
    expect(running.context.adminGroups.getGroup(trafficTeam.groupId)).toEqual(trafficGroup);
    expect(running.context.adminGroups.getGroup(radarTeam.id)).toEqual(radarTeam);
  });
});

describe("An admin group's page for an admin_manage holder", () => {
  it('links only the admins they manage to their account pages', async () => {
    const weatherMember = await createMember(running.context, 'weather-member@example.com', [manager.groupId]);
    const both = await createMember(running.context, 'both@example.com', [manager.groupId, trafficTeam.groupId]);
    const page = await client.get(`/admin/admin_groups/${manager.groupId}/edit`);
    expect(textOf(page.body)).toMatch(/Admins both@example\.com \(last sign-in: never\) manager@example\.com \(last sign-in: \d{4}-.* UTC\) weather-member@example\.com \(last sign-in: never\)/);
    expect(page.body).toContain(`<a href="/admin/admins/${weatherMember.id}/edit">weather-member@example.com</a>`);
    expect(page.body).not.toContain(`/admin/admins/${both.id}/edit`);
    expect(page.body).toContain(`<a href="/admin/admins/${manager.admin.id}/edit">manager@example.com</a>`);
    // Each link opens the account's page.
    expect((await client.get(`/admin/admins/${weatherMember.id}/edit`)).statusCode).toBe(200);
    expect((await client.get(`/admin/admins/${manager.admin.id}/edit`)).statusCode).toBe(200);
    expect((await client.get(`/admin/admins/${both.id}/edit`)).statusCode).toBe(403);
  });

  it('duplicates a group they manage into a new one', async () => {
    const radarTeam = createGroup(running.context, 'Radar team', [radar], ['analytics']);
    const page = await client.get(`/admin/admin_groups/${radarTeam.id}/edit`);
    expect(page.body).toContain(`href="/admin/admin_groups/new?duplicate_id=${radarTeam.id}"`);
    const form = await client.get(`/admin/admin_groups/new?duplicate_id=${radarTeam.id}`);
    expect(textOf(form.body)).toContain('Duplicated from Radar team');
    expect(checkbox(form.body, 'api_scope_ids', radar.id)).toBe('checked');
    expect(checkbox(form.body, 'api_scope_ids', traffic.id)).toBe('absent');
    const saved = await client.post('/admin/admin_groups', { duplicate_id: radarTeam.id, name: 'Radar team 2', api_scope_ids: radar.id, permission_ids: 'analytics' });
    expect(saved.statusCode).toBe(303);
    expect(running.context.adminGroups.listGroups().find((group) => group.name === 'Radar team 2')).toMatchObject({ api_scope_ids: [radar.id], permission_ids: ['analytics'] });
  });

  it('refuses a duplicate they could not make as a new group, and one of a group they may not see', async () => {
    running.context.adminGroups.updateGroup(manager.groupId, { name: 'group of manager@example.com', api_scope_ids: [weather.id], permission_ids: ['admin_view', 'admin_manage', 'analytics'] });
    // Seen, read-only: it grants what they do not hold.
    const publishers = createGroup(running.context, 'Weather publishers', [weather], ['backend_publish']);
    expect((await client.get(`/admin/admin_groups/${publishers.id}/edit`)).body).toContain(`href="/admin/admin_groups/new?duplicate_id=${publishers.id}"`);
    const form = await client.get(`/admin/admin_groups/new?duplicate_id=${publishers.id}`);
    expect(checkbox(form.body, 'permission_ids', 'backend_publish')).toBe('checked');
    const escalating = await client.post('/admin/admin_groups', { duplicate_id: publishers.id, name: 'Publishers 2', api_scope_ids: weather.id, permission_ids: 'backend_publish' });
    expectRefused(escalating);
    expect(textOf(escalating.body)).toContain('Duplicated from Weather publishers');
    expect(textOf(escalating.body)).toContain('backend_publish');

    // A group on a scope they only view: the scope is shown ticked, and the save refused, not saved without it.
    running.context.adminGroups.setGroupsOf(manager.admin.id, [manager.groupId, createGroup(running.context, 'Traffic viewers', [traffic], ['admin_view']).id]);
    const viewed = await client.get(`/admin/admin_groups/new?duplicate_id=${trafficTeam.groupId}`);
    expect(viewed.statusCode).toBe(200);
    expect(checkbox(viewed.body, 'api_scope_ids', traffic.id)).toBe('checked');
    expectRefused(await client.post('/admin/admin_groups', { duplicate_id: trafficTeam.groupId, name: 'Traffic 2', api_scope_ids: traffic.id, permission_ids: 'analytics' }));

    // Out of their sight: answered as its page is.
    const mixed = createGroup(running.context, 'Mixed team', [weather, radar, createScope(running.context, 'Elsewhere', 'www.example.com', '/')], ['analytics']);
    const hidden = await client.get(`/admin/admin_groups/new?duplicate_id=${mixed.id}`);
    expect(hidden.statusCode).toBe(403);
    expect(hidden.body).not.toContain('Mixed team');
    expect(running.context.adminGroups.listGroups().map((group) => group.name).sort()).toEqual([
      'Mixed team',
      'Traffic viewers',
      'Weather publishers',
      'group of manager@example.com',
      'group of traffic@example.com',
    ]);
  });
});

describe('Admin Accounts for an admin_manage holder', () => {
  it('shows Add Admin, and Edit and Delete only on the rows of the admins they manage', async () => {
    const weatherMember = await createMember(running.context, 'weather-member@example.com', [manager.groupId]);
    const both = await createMember(running.context, 'both@example.com', [manager.groupId, trafficTeam.groupId]);
    const weatherRoot = await createMember(running.context, 'weather-root@example.com', [manager.groupId], true);
    const list = await client.get('/admin/admins');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('href="/admin/admins/new"');
    expect(textOf(list.body)).toContain('Add Admin');
    expect(list.body).toContain(`href="/admin/admins/${weatherMember.id}/edit"`);
    expect(list.body).toContain(`href="/admin/admins/${weatherMember.id}/delete"`);
    for (const unmanaged of [both, weatherRoot]) {
      // Listed, without the means to change them.
      expect(textOf(list.body)).toContain(unmanaged.email);
      expect(list.body, unmanaged.email).not.toContain(`/admin/admins/${unmanaged.id}/edit`);
      expect(list.body, unmanaged.email).not.toContain(`/admin/admins/${unmanaged.id}/delete`);
    }
  });

  it('offers no Superuser box and only the groups wholly within their scopes, and adds an admin in one', async () => {
    const radarTeam = createGroup(running.context, 'Radar team', [radar], ['analytics']);
    const mixed = createGroup(running.context, 'Mixed team', [weather, traffic], ['analytics']);
    const form = await client.get('/admin/admins/new');
    expect(form.statusCode).toBe(200);
    expect(form.body).not.toContain('name="superuser"');
    expect(checkbox(form.body, 'group_ids', manager.groupId)).toBe('unchecked');
    expect(checkbox(form.body, 'group_ids', radarTeam.id)).toBe('unchecked');
    expect(checkbox(form.body, 'group_ids', trafficTeam.groupId)).toBe('absent');
    expect(checkbox(form.body, 'group_ids', mixed.id)).toBe('absent');

    const added = await client.post('/admin/admins', { email: 'new@example.com', password: PASSWORD, password_confirmation: PASSWORD, enabled: '1', group_ids: radarTeam.id });
    expect(added.statusCode).toBe(303);
    const created = running.context.admins.findByEmail('new@example.com');
    expect(created).toMatchObject({ superuser: false, enabled: true });
    expect(running.context.adminGroups.groupIdsOf(created!.id)).toEqual([radarTeam.id]);

    // A superuser's form still has the box and every group.
    const rootForm = await root.get('/admin/admins/new');
    expect(rootForm.body).toContain('name="superuser"');
    expect(checkbox(rootForm.body, 'group_ids', trafficTeam.groupId)).toBe('unchecked');
  });

  it('refuses forms beyond their reach, changing nothing, and saves an admin they manage', async () => {
    const weatherMember = await createMember(running.context, 'weather-member@example.com', [manager.groupId]);
    const both = await createMember(running.context, 'both@example.com', [manager.groupId, trafficTeam.groupId]);
    const weatherRoot = await createMember(running.context, 'weather-root@example.com', [manager.groupId], true);
    const newAdmin = { email: 'new@example.com', password: PASSWORD, password_confirmation: PASSWORD, enabled: '1' };
    expectRefused(await submit(client, '/admin/admins', { ...newAdmin, group_ids: trafficTeam.groupId }), 'another team');
    expectRefused(await submit(client, '/admin/admins', { ...newAdmin, superuser: '1', group_ids: manager.groupId }), 'superuser');
    // In no group: invalid for anyone (API Umbrella's rule), told as such.
    const inNoGroup = await submit(client, '/admin/admins', newAdmin);
    expect(inNoGroup.statusCode).toBe(422);
    expect(textOf(inNoGroup.body)).toContain('Groups must belong to at least one group or be a superuser');
    expect(running.context.admins.findByEmail('new@example.com')).toBeNull();

    expect((await client.get(`/admin/admins/${both.id}/edit`)).statusCode).toBe(403);
    // Taking them out of the other team's group is no way in.
    expectRefused(await submit(client, `/admin/admins/${both.id}`, { email: 'both@example.com', enabled: '1', group_ids: manager.groupId }), 'both');
    expectRefused(await submit(client, `/admin/admins/${weatherRoot.id}/delete`, {}), 'superuser');
    expectRefused(await submit(client, `/admin/admins/${weatherMember.id}`, { email: 'weather-member@example.com', enabled: '1', group_ids: trafficTeam.groupId }), 'to another team');
    expect(running.context.adminGroups.groupIdsOf(both.id).sort()).toEqual([manager.groupId, trafficTeam.groupId].sort());
    expect(running.context.admins.get(weatherRoot.id)).toEqual(weatherRoot);
    expect(running.context.adminGroups.groupIdsOf(weatherMember.id)).toEqual([manager.groupId]);

    await client.get(`/admin/admins/${weatherMember.id}/edit`);
    const saved = await client.post(`/admin/admins/${weatherMember.id}`, { email: 'renamed@example.com', enabled: '1', group_ids: manager.groupId });
    expect(saved.statusCode).toBe(303);
    expect(running.context.admins.get(weatherMember.id)!.email).toBe('renamed@example.com');
  });
});
