// Users › API Scopes and Admin Groups in the web admin: superusers (admin_manage holders: test/admin-ui/admin-manage.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGroup, createScope, createScopedAdmin, SCOPED_PASSWORD } from '../helpers/scoped-admin.js';
import { AdminClient, checkbox, createAdmin, expectTwoPagesPager, startSignedIn, textOf, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

describe('API Scopes', () => {
  it('adds, edits, and deletes a scope after confirmation', async () => {
    expect(textOf((await client.get('/admin/api_scopes')).body)).toContain('No API scopes yet');
    const form = await client.get('/admin/api_scopes/new');
    for (const label of ['Name', 'Host', 'Path Prefix']) expect(textOf(form.body)).toContain(label);
    const added = await client.post('/admin/api_scopes', { name: 'Weather', host: 'API.example.com', path_prefix: '/weather/' });
    expect(textOf((await client.follow(added)).body)).toMatch(/Added the API scope “Weather”\..*Weather api\.example\.com \/weather\/ No group/);

    const [saved] = running.context.adminGroups.listScopes();
    await client.get(`/admin/api_scopes/${saved!.id}/edit`);
    const edited = await client.post(`/admin/api_scopes/${saved!.id}`, { name: 'Weather v2', host: 'api.example.com', path_prefix: '/weather/v2/' });
    expect(textOf((await client.follow(edited)).body)).toMatch(/Saved the API scope “Weather v2”\..*Weather v2 api\.example\.com \/weather\/v2\//);

    const confirm = await client.get(`/admin/api_scopes/${saved!.id}/delete`);
    expect(textOf(confirm.body)).toContain('Delete “Weather v2”? No admin group uses it');
    expect(running.context.adminGroups.getScope(saved!.id)).not.toBeNull();
    const deleted = await client.post(`/admin/api_scopes/${saved!.id}/delete`);
    expect(textOf((await client.follow(deleted)).body)).toContain('Deleted the API scope “Weather v2”.');
    expect(running.context.adminGroups.getScope(saved!.id)).toBeNull();
  });

  it('keeps the form and names each field at fault', async () => {
    createScope(running.context, 'Taken', 'api.example.com', '/taken/');
    await client.get('/admin/api_scopes/new');
    const invalid = await client.post('/admin/api_scopes', { name: 'Odd', host: 'not a host', path_prefix: 'weather' });
    expect(invalid.statusCode).toBe(422);
    expect(textOf(invalid.body)).toContain('Host must be in the format of "example.com"');
    expect(textOf(invalid.body)).toContain('Path Prefix must start with "/"');
    expect(invalid.body).toContain('value="not a host"');
    const taken = await client.post('/admin/api_scopes', { name: 'Again', host: 'api.example.com', path_prefix: '/taken/' });
    expect(textOf(taken.body)).toContain('Path Prefix has already been taken');
    expect(running.context.adminGroups.listScopes()).toHaveLength(1);
  });

  it('refuses to delete a scope a group uses, saying so before and after', async () => {
    const used = createScope(running.context, 'Used', 'api.example.com', '/used/');
    createGroup(running.context, 'Users of it', [used], ['analytics']);
    expect(textOf((await client.get('/admin/api_scopes')).body)).toContain('Used api.example.com /used/ Users of it');
    const confirm = await client.get(`/admin/api_scopes/${used.id}/delete`);
    expect(textOf(confirm.body)).toContain('This API scope is used by the admin group "Users of it"; take it out of that group first.');
    const refused = await client.post(`/admin/api_scopes/${used.id}/delete`);
    expect(textOf((await client.follow(refused)).body)).toContain('This API scope is used by the admin group "Users of it"');
    expect(running.context.adminGroups.getScope(used.id)).not.toBeNull();
  });

  it('searches by name, host or path prefix as the admin API does, ignoring case, and pages by 50 with the search kept', async () => {
    for (let index = 1; index <= 60; index++) {
      const number = String(index).padStart(2, '0');
      createScope(running.context, `Scope ${number}`, 'api.example.com', `/svc${number}/`);
    }
    createScope(running.context, 'Books', 'ledger.example.com', '/');
    // In the list's order: by host, then prefix.
    const first = textOf((await client.get('/admin/api_scopes')).body);
    expect(first).toContain('Showing 1–50 of 61');
    expect(first).toContain('Scope 50');
    expect(first).not.toContain('Scope 51');
    const second = textOf((await client.get('/admin/api_scopes?page=2')).body);
    expect(second).toContain('Showing 51–61 of 61');
    expect(second).toMatch(/Scope 60 .*Books/);
    await expectTwoPagesPager(client, '/admin/api_scopes', 'search=scope');
    expect((await client.get('/admin/api_scopes?search=SCOPE')).body).toContain('value="SCOPE"');

    const byHost = textOf((await client.get('/admin/api_scopes?search=LEDGER')).body);
    expect(byHost).toContain('Books ledger.example.com /');
    expect(byHost).not.toContain('Scope 01');
    expect(byHost).not.toContain('Showing');
    const byPrefix = textOf((await client.get('/admin/api_scopes?search=%2FSVC42%2F')).body);
    expect(byPrefix).toContain('Scope 42');
    expect(byPrefix).not.toContain('Scope 41');
    const byName = textOf((await client.get('/admin/api_scopes?search=scope+1')).body);
    expect(byName).toContain('Scope 19');
    expect(byName).not.toContain('Scope 20');

    const none = await client.get('/admin/api_scopes?search=%3Cscript%3E');
    expect(textOf(none.body)).toContain('No API scopes match “<script>” Try part of a name, a host or a path prefix, or show every API scope');
    expect(none.body).not.toContain('<script>');
  });

  it('answers 404 for a scope that is not there', async () => {
    for (const path of ['/admin/api_scopes/no-such-scope/edit', '/admin/api_scopes/no-such-scope/delete']) {
      const response = await client.get(path);
      expect(response.statusCode, path).toBe(404);
      expect(textOf(response.body)).toContain('API Scope not found');
    }
  });
});

describe('Admin Groups', () => {
  it('adds a group from checkboxes and lists its scopes, permissions and admins', async () => {
    const weather = createScope(running.context, 'Weather', 'api.example.com', '/weather/');
    const traffic = createScope(running.context, 'Traffic', 'api.example.com', '/traffic/');
    const form = await client.get('/admin/admin_groups/new');
    expect(textOf(form.body)).toContain('Weather api.example.com/weather/');
    for (const label of ['Analytics', 'API Users - View', 'API Users - Manage', 'Admin Accounts - View', 'API Backend Configuration - View & Manage', 'API Backend Configuration - Publish']) {
      expect(textOf(form.body)).toContain(label);
    }
    const added = await client.post('/admin/admin_groups', { name: 'Weather team', api_scope_ids: [weather.id], permission_ids: ['analytics', 'user_view'] });
    expect(textOf((await client.follow(added)).body)).toMatch(/Added the admin group “Weather team”\..*Weather team Weather api\.example\.com\/weather\/ Analytics API Users - View No admin/);

    const [saved] = running.context.adminGroups.listGroups();
    expect(saved).toMatchObject({ name: 'Weather team', api_scope_ids: [weather.id], permission_ids: ['analytics', 'user_view'] });
    const member = await createAdmin(running.context, 'member@example.com', false);
    running.context.adminGroups.setGroupsOf(member.id, [saved!.id]);
    expect(textOf((await client.get('/admin/admin_groups')).body)).toContain('API Users - View member@example.com');

    const edit = await client.get(`/admin/admin_groups/${saved!.id}/edit`);
    expect(checkbox(edit.body, 'api_scope_ids', weather.id)).toBe('checked');
    expect(checkbox(edit.body, 'api_scope_ids', traffic.id)).toBe('unchecked');
    expect(checkbox(edit.body, 'permission_ids', 'user_view')).toBe('checked');
    expect(checkbox(edit.body, 'permission_ids', 'user_manage')).toBe('unchecked');
    const edited = await client.post(`/admin/admin_groups/${saved!.id}`, { name: 'Weather team', api_scope_ids: [weather.id, traffic.id], permission_ids: 'backend_manage' });
    expect(edited.statusCode).toBe(303);
    expect(running.context.adminGroups.getGroup(saved!.id)!.permission_ids).toEqual(['backend_manage']);
    expect(running.context.adminGroups.accessOf(member).scopesWith('backend_manage')).toHaveLength(2);
  });

  it('keeps the checked boxes when the form has errors', async () => {
    const weather = createScope(running.context, 'Weather', 'api.example.com', '/weather/');
    await client.get('/admin/admin_groups/new');
    const refused = await client.post('/admin/admin_groups', { name: ' ', api_scope_ids: [weather.id] });
    expect(refused.statusCode).toBe(422);
    expect(textOf(refused.body)).toContain("Name can't be blank");
    expect(textOf(refused.body)).toContain("Permissions can't be blank");
    // API Umbrella's field for a blank list (permissions) is shown next to the boxes, as the ids' errors are.
    expect(refused.body).toMatch(/<legend>Permissions<\/legend>[\s\S]*?<p class="field-error"[^>]*>can&#39;t be blank</);
    expect(checkbox(refused.body, 'api_scope_ids', weather.id)).toBe('checked');
    const unknown = await client.post('/admin/admin_groups', { name: 'Odd', api_scope_ids: 'no-such-scope', permission_ids: 'analytics' });
    expect(textOf(unknown.body)).toContain('API Scopes contains "no-such-scope", which is no API scope');
    expect(running.context.adminGroups.listGroups()).toEqual([]);
  });

  it("ties a group of boxes' errors to its fieldset and marks its boxes invalid, as a text field's", async () => {
    const weather = createScope(running.context, 'Weather', 'api.example.com', '/weather/');
    await client.get('/admin/admin_groups/new');
    const refused = await client.post('/admin/admin_groups', { name: 'Managers', permission_ids: 'user_manage' });
    expect(refused.statusCode).toBe(422);
    for (const [name, legend, error] of [
      ['api_scope_ids', 'API Scopes', 'can&#39;t be blank'],
      ['permission_ids', 'Permissions', 'API Users - View permission must be included if API Users - Manage is enabled'],
    ] as const) {
      const fieldset = new RegExp(`<fieldset class="plain" aria-describedby="([^"]+)">\\s*<legend>${legend}</legend>([\\s\\S]*?)</fieldset>`).exec(refused.body);
      expect(fieldset, legend).not.toBeNull();
      const [, describedBy, inside] = fieldset!;
      expect(new RegExp(`id="${describedBy}">([^<]*)<`).exec(inside!)?.[1], legend).toBe(error);
      const boxes = [...inside!.matchAll(new RegExp(`<input type="checkbox"[^>]*name="${name}"[^>]*>`, 'g'))].map(([box]) => box);
      expect(boxes.length, legend).toBeGreaterThan(0);
      for (const box of boxes) expect(box, legend).toContain('aria-invalid="true"');
    }
    // A group without errors is described by its help, its boxes not marked.
    const fine = await client.post('/admin/admin_groups', { name: 'Managers', api_scope_ids: weather.id });
    expect(fine.body).toMatch(/<fieldset class="plain" aria-describedby="(f-api_scope_ids-help)">\s*<legend>API Scopes<\/legend>\s*<p class="hint" id="\1">Where the permissions below apply\.<\/p>/);
    expect(checkbox(fine.body, 'api_scope_ids', weather.id)).toBe('checked');
    expect(fine.body).not.toMatch(/name="api_scope_ids"[^>]*aria-invalid/);
  });

  it('refuses a Manage permission without its View one, keeping the boxes, and saves them together', async () => {
    const weather = createScope(running.context, 'Weather', 'api.example.com', '/weather/');
    const form = await client.get('/admin/admin_groups/new');
    expect(textOf(form.body)).toContain('A Manage permission comes with its View one: tick both.');
    const refused = await client.post('/admin/admin_groups', { name: 'Managers', api_scope_ids: weather.id, permission_ids: ['user_manage', 'admin_manage'] });
    expect(refused.statusCode).toBe(422);
    // Named as the form's boxes are, where the admin API answers API Umbrella's ids.
    expect(textOf(refused.body)).toContain('API Users - View permission must be included if API Users - Manage is enabled');
    expect(textOf(refused.body)).toContain('Admin Accounts - View permission must be included if Admin Accounts - Manage is enabled');
    expect(checkbox(refused.body, 'permission_ids', 'admin_manage')).toBe('checked');
    expect(running.context.adminGroups.listGroups()).toEqual([]);
    const saved = await client.post('/admin/admin_groups', { name: 'Managers', api_scope_ids: weather.id, permission_ids: ['user_view', 'user_manage', 'admin_view', 'admin_manage'] });
    expect(saved.statusCode).toBe(303);
    expect(running.context.adminGroups.listGroups()[0]!.permission_ids).toEqual(['user_view', 'user_manage', 'admin_view', 'admin_manage']);
  });

  it('sends to the API scopes first when there is none', async () => {
    const form = await client.get('/admin/admin_groups/new');
    expect(textOf(form.body)).toContain('There are no API scopes yet. Add an API scope first');
    expect(form.body).toContain('href="/admin/api_scopes/new"');
  });

  it('searches by name as the admin API does, ignoring case, and pages by 50 with the search kept', async () => {
    const weather = createScope(running.context, 'Weather', 'api.example.com', '/weather/');
    for (let index = 1; index <= 60; index++) createGroup(running.context, `Team ${String(index).padStart(2, '0')}`, [weather], ['analytics']);
    const member = await createAdmin(running.context, 'member@example.com', false);
    running.context.adminGroups.setGroupsOf(member.id, [running.context.adminGroups.listGroups().find((group) => group.name === 'Team 55')!.id]);
    // In the list's order: by name.
    const first = textOf((await client.get('/admin/admin_groups')).body);
    expect(first).toContain('Showing 1–50 of 60');
    expect(first).toContain('Team 50');
    expect(first).not.toContain('Team 51');
    const second = textOf((await client.get('/admin/admin_groups?page=2')).body);
    expect(second).toContain('Showing 51–60 of 60');
    expect(second).toContain('Team 55 Weather api.example.com/weather/ Analytics member@example.com');
    await expectTwoPagesPager(client, '/admin/admin_groups', 'search=team');

    const some = await client.get('/admin/admin_groups?search=TEAM+1');
    expect(some.body).toContain('value="TEAM 1"');
    expect(textOf(some.body)).toContain('Team 19');
    expect(textOf(some.body)).not.toContain('Team 20');
    expect(textOf(some.body)).not.toContain('Showing');
    // Only by name: not by a scope's name nor an admin's email.
    for (const search of ['weather', 'member']) expect(textOf((await client.get(`/admin/admin_groups?search=${search}`)).body), search).toContain(`No admin groups match “${search}”`);
    const none = await client.get('/admin/admin_groups?search=%3Cscript%3E');
    expect(textOf(none.body)).toContain('No admin groups match “<script>” Try part of a group\'s name, or show every admin group');
    expect(none.body).not.toContain('<script>');
  });

  it("lists the group's admins on its page, each linked to their account, with their last sign-in", async () => {
    const weather = createScope(running.context, 'Weather', 'api.example.com', '/weather/');
    const team = createGroup(running.context, 'Weather team', [weather], ['analytics']);
    const empty = createGroup(running.context, 'Empty team', [weather], ['analytics']);
    const signedIn = await createAdmin(running.context, 'signed-in@example.com', false);
    const never = await createAdmin(running.context, 'never@example.com', false);
    for (const admin of [signedIn, never]) running.context.adminGroups.setGroupsOf(admin.id, [team.id]);
    running.context.admins.recordSignIn(signedIn.id, '127.0.0.1');

    const page = await client.get(`/admin/admin_groups/${team.id}/edit`);
    expect(textOf(page.body)).toMatch(/Admins never@example\.com \(last sign-in: never\) signed-in@example\.com \(last sign-in: \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(page.body).toContain(`<a href="/admin/admins/${never.id}/edit">never@example.com</a>`);
    expect(page.body).toContain(`<a href="/admin/admins/${signedIn.id}/edit">signed-in@example.com</a>`);
    expect(textOf((await client.get(`/admin/admin_groups/${empty.id}/edit`)).body)).toContain('Admins None: no admin is in this group.');
    expect(textOf((await client.get('/admin/admin_groups/new')).body)).not.toContain('Admins');
  });

  it('duplicates a group: the add form filled from it, saved as a new group, the original unchanged', async () => {
    const weather = createScope(running.context, 'Weather', 'api.example.com', '/weather/');
    const traffic = createScope(running.context, 'Traffic', 'api.example.com', '/traffic/');
    const source = createGroup(running.context, 'Source team', [weather], ['analytics', 'user_view']);
    const member = await createAdmin(running.context, 'member@example.com', false);
    running.context.adminGroups.setGroupsOf(member.id, [source.id]);

    const edit = await client.get(`/admin/admin_groups/${source.id}/edit`);
    expect(edit.body).toMatch(new RegExp(`<a href="/admin/admin_groups/new\\?duplicate_id=${source.id}"[^>]*>Duplicate Admin Group</a>`));
    const form = await client.get(`/admin/admin_groups/new?duplicate_id=${source.id}`);
    expect(form.statusCode).toBe(200);
    expect(textOf(form.body)).toContain('Add Admin Group Duplicated from Source team');
    expect(form.body).toContain('action="/admin/admin_groups"');
    expect(form.body).toContain('name="name" value="Source team"');
    expect(checkbox(form.body, 'api_scope_ids', weather.id)).toBe('checked');
    expect(checkbox(form.body, 'api_scope_ids', traffic.id)).toBe('unchecked');
    expect(checkbox(form.body, 'permission_ids', 'analytics')).toBe('checked');
    expect(checkbox(form.body, 'permission_ids', 'user_view')).toBe('checked');
    expect(checkbox(form.body, 'permission_ids', 'backend_manage')).toBe('unchecked');
    // A new group has no admins yet, nor anything to duplicate.
    expect(textOf(form.body)).not.toContain('member@example.com');
    expect(form.body).not.toContain('Duplicate Admin Group');

    // Names are unique: saved as it is, the name is refused, the note kept.
    const fields = { duplicate_id: source.id, name: 'Source team', api_scope_ids: weather.id, permission_ids: ['analytics', 'user_view'] };
    const taken = await client.post('/admin/admin_groups', fields);
    expect(taken.statusCode).toBe(422);
    expect(textOf(taken.body)).toContain('Duplicated from Source team');
    expect(textOf(taken.body)).toContain('Group Name has already been taken');
    const saved = await client.post('/admin/admin_groups', { ...fields, name: 'Copy team' });
    expect(saved.statusCode).toBe(303);
    expect(textOf((await client.follow(saved)).body)).toContain('Added the admin group “Copy team”.');
    const copy = running.context.adminGroups.listGroups().find((group) => group.name === 'Copy team')!;
    expect(copy.id).not.toBe(source.id);
    expect(copy).toMatchObject({ api_scope_ids: [weather.id], permission_ids: ['analytics', 'user_view'] });
    expect(running.context.adminGroups.memberEmails(copy.id)).toEqual([]);
    expect(running.context.adminGroups.getGroup(source.id)).toEqual(source);

    const missing = await client.get('/admin/admin_groups/new?duplicate_id=no-such-group');
    expect(missing.statusCode).toBe(404);
    expect(textOf(missing.body)).toContain('Admin Group not found');
  });

  it('deletes a group after confirmation: its admins stay, without what it granted', async () => {
    const { admin, groupId } = await createScopedAdmin(running.context, { email: 'member@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/' }], permissions: ['analytics'] });
    const confirm = await client.get(`/admin/admin_groups/${groupId}/delete`);
    expect(textOf(confirm.body)).toContain('Its admins (member@example.com) keep their accounts but lose what this group granted them.');
    const deleted = await client.post(`/admin/admin_groups/${groupId}/delete`);
    expect(textOf((await client.follow(deleted)).body)).toContain('Deleted the admin group “group of member@example.com”.');
    expect(running.context.admins.get(admin.id)).not.toBeNull();
    expect(running.context.adminGroups.accessOf(admin).has('analytics')).toBe(false);
  });
});

describe('admins without admin_manage', () => {
  it('shows every other admin the 403 page on every page and form beyond what they may read, and changes nothing', async () => {
    const kept = createScope(running.context, 'Kept', 'api.example.com', '/kept/');
    const keptGroup = createGroup(running.context, 'Kept group', [kept], ['analytics']);
    await createScopedAdmin(running.context, { email: 'viewer@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/mine/' }], permissions: ['admin_view', 'backend_manage'] });
    await createScopedAdmin(running.context, { email: 'backends@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/mine/' }], permissions: ['backend_manage'] });
    const scoped = new AdminClient(running.app);
    await scoped.signIn('viewer@example.com', SCOPED_PASSWORD);
    // admin_view shows the lists, holding only what lies within their scopes.
    for (const path of ['/admin/api_scopes', '/admin/admin_groups']) {
      const list = await scoped.get(path);
      expect(list.statusCode, path).toBe(200);
      expect(textOf(list.body), path).not.toContain('Kept');
    }
    const withoutAdminView = new AdminClient(running.app);
    await withoutAdminView.signIn('backends@example.com', SCOPED_PASSWORD);
    for (const path of ['/admin/api_scopes', '/admin/admin_groups']) expect((await withoutAdminView.get(path)).statusCode, path).toBe(403);
    const pages = ['/admin/api_scopes/new', `/admin/api_scopes/${kept.id}/edit`, `/admin/api_scopes/${kept.id}/delete`];
    pages.push('/admin/admin_groups/new', `/admin/admin_groups/${keptGroup.id}/edit`, `/admin/admin_groups/${keptGroup.id}/delete`);
    for (const path of pages) {
      const page = await scoped.get(path);
      expect(page.statusCode, path).toBe(403);
      expect(textOf(page.body)).toContain('Not authorized You are not authorized to perform this action. You are only authorized to perform actions for APIs in the following areas: - api.example.com/mine/');
    }
    const forms: [string, Record<string, string | string[]>][] = [
      ['/admin/api_scopes', { name: 'Mine', host: 'api.example.com', path_prefix: '/mine/more/' }],
      [`/admin/api_scopes/${kept.id}`, { name: 'Taken over', host: 'api.example.com', path_prefix: '/kept/' }],
      [`/admin/api_scopes/${kept.id}/delete`, {}],
      ['/admin/admin_groups', { name: 'Mine', api_scope_ids: kept.id, permission_ids: 'analytics' }],
      [`/admin/admin_groups/${keptGroup.id}`, { name: 'Kept group', api_scope_ids: kept.id, permission_ids: ['analytics', 'backend_manage'] }],
      [`/admin/admin_groups/${keptGroup.id}/delete`, {}],
    ];
    for (const [path, fields] of forms) expect((await scoped.post(path, fields)).statusCode, path).toBe(403);
    expect(running.context.adminGroups.listScopes().map((s) => s.name).sort()).toEqual(['Kept', 'api.example.com/mine/']);
    expect(running.context.adminGroups.getGroup(keptGroup.id)).toMatchObject({ name: 'Kept group', permission_ids: ['analytics'] });
  });

  it('tells an admin in no group that they have no APIs yet', async () => {
    await createAdmin(running.context, 'nobody@example.com', false);
    const nobody = new AdminClient(running.app);
    await nobody.signIn('nobody@example.com');
    const page = await nobody.get('/admin/admin_groups');
    expect(page.statusCode).toBe(403);
    expect(textOf(page.body)).toContain('You are not authorized for any APIs yet.');
  });
});

describe('names with markup', () => {
  it('are shown as text on every page that names a scope or group', async () => {
    const xss = '<script>alert(1)</script>';
    const evil = createScope(running.context, `Scope ${xss}`, 'api.example.com', '/evil/');
    await client.get('/admin/admin_groups/new');
    const added = await client.post('/admin/admin_groups', { name: `Group ${xss}`, api_scope_ids: evil.id, permission_ids: 'analytics' });
    const evilGroup = running.context.adminGroups.listGroups()[0]!;
    const member = await createAdmin(running.context, 'member@example.com', false);
    running.context.adminGroups.setGroupsOf(member.id, [evilGroup.id]);
    const pages = [
      await client.follow(added),
      await client.get('/admin/api_scopes'),
      await client.get(`/admin/api_scopes/${evil.id}/edit`),
      await client.get(`/admin/api_scopes/${evil.id}/delete`),
      await client.get(`/admin/admin_groups/${evilGroup.id}/edit`),
      await client.get(`/admin/admin_groups/${evilGroup.id}/delete`),
      await client.get('/admin/admins'),
      await client.get(`/admin/admins/${member.id}/edit`),
    ];
    for (const page of pages) {
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain(xss);
      expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });
});
