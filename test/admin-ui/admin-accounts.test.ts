import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createScopedAdmin, SCOPED_PASSWORD } from '../helpers/scoped-admin.js';
import { AdminClient, createAdmin, expectTwoPagesPager, PASSWORD, startSignedIn, textOf, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

describe('Admin Accounts', () => {
  it('lets a superuser add an admin, the email lowercased, who can then sign in', async () => {
    const form = await client.get('/admin/admins/new');
    for (const label of ['Email', 'Password', 'Password Confirmation', 'Superuser']) expect(textOf(form.body)).toContain(label);
    const added = await client.post('/admin/admins', { email: ' New@Example.com', password: PASSWORD, password_confirmation: PASSWORD, superuser: '1', enabled: '1' });
    expect(textOf((await client.follow(added)).body)).toMatch(/Added the admin new@example\.com.*new@example\.com Superuser Enabled/);
    expect(running.context.admins.findByEmail('new@example.com')?.email).toBe('new@example.com');
    expect((await new AdminClient(running.app).signIn('NEW@example.com', PASSWORD)).statusCode).toBe(303);
    // A post without the enabled field (an older form) still adds an admin who can sign in.
    await client.get('/admin/admins/new');
    await client.post('/admin/admins', { email: 'older-form@example.com', password: PASSWORD, password_confirmation: PASSWORD, superuser: '1' });
    expect(running.context.admins.findByEmail('older-form@example.com')?.enabled).toBe(true);
  });

  it("keeps API Umbrella's name and notes, which the admin API has: set on adding, shown and changed on editing, blank for none", async () => {
    await client.get('/admin/admins/new');
    await client.post('/admin/admins', { email: 'named@example.com', name: ' Ada Lovelace ', notes: 'Runs the weather APIs.', password: PASSWORD, password_confirmation: PASSWORD, superuser: '1' });
    const named = running.context.admins.findByEmail('named@example.com')!;
    expect([named.name, named.notes]).toEqual(['Ada Lovelace', 'Runs the weather APIs.']);
    const edit = await client.get(`/admin/admins/${named.id}/edit`);
    expect(edit.body).toContain('value="Ada Lovelace"');
    expect(edit.body).toContain('Runs the weather APIs.</textarea>');
    const tooLong = await client.post(`/admin/admins/${named.id}`, { email: 'named@example.com', name: 'x'.repeat(256), notes: '', superuser: '1', enabled: '1' });
    expect(tooLong.statusCode).toBe(422);
    expect(textOf(tooLong.body)).toContain('Name is too long (maximum is 255 characters)');
    await client.post(`/admin/admins/${named.id}`, { email: 'named@example.com', name: '', notes: ' ', superuser: '1', enabled: '1' });
    const cleared = running.context.admins.findByEmail('named@example.com')!;
    expect([cleared.name, cleared.notes]).toEqual([null, null]);
  });

  it('refuses an admin who is neither a superuser nor in a group, and taking the last group away', async () => {
    await client.get('/admin/admins/new');
    const refused = await client.post('/admin/admins', { email: 'nobody@example.com', password: PASSWORD, password_confirmation: PASSWORD, enabled: '1' });
    expect(refused.statusCode).toBe(422);
    expect(textOf(refused.body)).toContain('Groups must belong to at least one group or be a superuser');
    // Without any group yet, the form says what to do.
    expect(textOf(refused.body)).toContain('an admin who is not a superuser must belong to one, so add an admin group first, or make them a superuser');
    expect(running.context.admins.findByEmail('nobody@example.com')).toBeNull();
  });

  it('refuses a taken email and a short password, keeping the form', async () => {
    await client.get('/admin/admins/new');
    const response = await client.post('/admin/admins', { email: 'OPS@example.com', password: 'short', password_confirmation: 'short' });
    expect(response.statusCode).toBe(422);
    expect(textOf(response.body)).toContain('Email has already been taken');
    expect(textOf(response.body)).toContain('Password is too short (minimum is 14 characters)');
  });

  it('disables an admin: their sessions and token stop working', async () => {
    const other = await createAdmin(running.context, 'other@example.com', false);
    const token = running.context.admins.regenerateToken(other.id)!;
    const otherClient = new AdminClient(running.app);
    await otherClient.signIn('other@example.com', PASSWORD);
    // My Account: the one page an admin in no group may open.
    expect((await otherClient.get('/admin/account')).statusCode).toBe(200);

    await client.get(`/admin/admins/${other.id}/edit`);
    const saved = await client.post(`/admin/admins/${other.id}`, { email: 'other@example.com' });
    expect(textOf((await client.follow(saved)).body)).toMatch(/other@example\.com Admin Disabled/);
    expect((await otherClient.get('/admin/account')).statusCode).toBe(303);
    expect(running.context.admins.findByToken(token)).toBeNull();
  });

  it('never lets the last superuser be deleted, disabled or demoted', async () => {
    const me = running.context.admins.findByEmail('ops@example.com')!;
    await client.get(`/admin/admins/${me.id}/edit`);
    const demoted = await client.post(`/admin/admins/${me.id}`, { email: 'ops@example.com', enabled: '1' });
    expect(demoted.statusCode).toBe(422);
    expect(textOf(demoted.body)).toContain('The last superuser cannot be deleted, disabled or demoted.');
    const deleted = await client.post(`/admin/admins/${me.id}/delete`);
    expect(textOf((await client.follow(deleted)).body)).toContain('The last superuser cannot be deleted, disabled or demoted.');
    expect(running.context.admins.get(me.id)).toMatchObject({ superuser: true, enabled: true });
  });

  it('deletes another admin after confirmation', async () => {
    const other = await createAdmin(running.context, 'leaving@example.com', false);
    expect(textOf((await client.get(`/admin/admins/${other.id}/delete`)).body)).toContain('Delete leaving@example.com?');
    const deleted = await client.post(`/admin/admins/${other.id}/delete`);
    expect(textOf((await client.follow(deleted)).body)).toContain('Deleted the admin leaving@example.com.');
    expect(running.context.admins.get(other.id)).toBeNull();
  });

  it('lets only superusers and admin_manage holders change accounts; an admin_view holder sees the list without a way to change it', async () => {
    const { admin: viewer } = await createScopedAdmin(running.context, { email: 'viewer@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/' }], permissions: ['admin_view'] });
    const viewerClient = new AdminClient(running.app);
    await viewerClient.signIn('viewer@example.com', SCOPED_PASSWORD);
    const list = await viewerClient.get('/admin/admins');
    expect(list.statusCode).toBe(200);
    expect(textOf(list.body)).not.toContain('Add Admin');
    expect(list.body).not.toContain('/edit"');
    for (const path of ['/admin/admins/new', `/admin/admins/${viewer.id}/edit`]) expect((await viewerClient.get(path)).statusCode).toBe(403);
    const me = running.context.admins.findByEmail('ops@example.com')!;
    const refused = await viewerClient.post(`/admin/admins/${me.id}/delete`);
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain('Only superusers, and admins whose group grants "Admin Accounts - Manage", can add, change or delete admin accounts.');
    expect(running.context.admins.get(me.id)).not.toBeNull();
  });

  it('refuses the list to an admin without admin_view', async () => {
    await createAdmin(running.context, 'plain@example.com', false);
    await createScopedAdmin(running.context, { email: 'analyst@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/' }], permissions: ['analytics', 'user_manage'] });
    for (const [email, message] of [
      ['plain@example.com', 'You are not authorized for any APIs yet.'],
      ['analyst@example.com', 'You are only authorized to perform actions for APIs in the following areas: - api.example.com/'],
    ] as const) {
      const other = new AdminClient(running.app);
      await other.signIn(email, PASSWORD);
      const refused = await other.get('/admin/admins');
      expect(refused.statusCode, email).toBe(403);
      expect(textOf(refused.body)).toContain(`Not authorized You are not authorized to perform this action. ${message}`);
    }
  });

  it('shows an admin_view holder the admins of groups within their scopes, and themselves', async () => {
    const viewable = { host: 'api.example.com', path_prefix: '/agency-a/' };
    await createScopedAdmin(running.context, { email: 'viewer@example.com', scopes: [viewable], permissions: ['admin_view'] });
    await createScopedAdmin(running.context, { email: 'same-scope@example.com', scopes: [viewable], permissions: ['analytics'] });
    await createScopedAdmin(running.context, { email: 'deeper@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/agency-a/sub/' }], permissions: ['user_view'] });
    await createScopedAdmin(running.context, { email: 'wider@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/agency' }], permissions: ['analytics'] });
    await createScopedAdmin(running.context, { email: 'other-agency@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/agency-b/' }], permissions: ['analytics'] });
    await createScopedAdmin(running.context, { email: 'other-host@example.com', scopes: [{ host: 'www.example.com', path_prefix: '/agency-a/' }], permissions: ['analytics'] });
    await createAdmin(running.context, 'in-no-group@example.com', false);
    const viewer = new AdminClient(running.app);
    await viewer.signIn('viewer@example.com', SCOPED_PASSWORD);
    const list = await viewer.get('/admin/admins');
    const shown = [...list.body.matchAll(/<td>([^<\s]+@example\.com)/g)].map((match) => match[1]).sort();
    expect(shown).toEqual(['deeper@example.com', 'same-scope@example.com', 'viewer@example.com']);
    // A superuser sees everyone.
    const everyone = textOf((await client.get('/admin/admins')).body);
    for (const email of ['ops', 'wider', 'other-agency', 'other-host', 'in-no-group']) expect(everyone).toContain(`${email}@example.com`);
  });

  it("shows an admin_view holder only the names of groups wholly within their scopes, and a ported scope's admins", async () => {
    const viewable = { host: 'api.example.com', path_prefix: '/agency-a/' };
    await createScopedAdmin(running.context, { email: 'viewer@example.com', scopes: [viewable], permissions: ['admin_view'] });
    const { admin: both } = await createScopedAdmin(running.context, { email: 'both@example.com', scopes: [viewable], permissions: ['analytics'] });
    const secret = running.context.adminGroups.createScope({ name: 'B', host: 'api.example.com', path_prefix: '/agency-b/' });
    if (!secret.ok) throw new Error(JSON.stringify(secret.errors));
    const bGroup = running.context.adminGroups.createGroup({ name: 'Agency B secret team', api_scope_ids: [secret.value.id], permission_ids: ['analytics'] });
    if (!bGroup.ok) throw new Error(JSON.stringify(bGroup.errors));
    running.context.adminGroups.setGroupsOf(both.id, [...running.context.adminGroups.groupIdsOf(both.id), bGroup.value.id]);
    await createScopedAdmin(running.context, { email: 'ported@example.com', scopes: [{ host: 'api.example.com:8443', path_prefix: '/agency-a/' }], permissions: ['analytics'] });
    const viewer = new AdminClient(running.app);
    await viewer.signIn('viewer@example.com', SCOPED_PASSWORD);
    const list = textOf((await viewer.get('/admin/admins')).body);
    expect(list).toContain('both@example.com Admin Enabled group of both@example.com 1 other');
    expect(list).not.toContain('Agency B secret team');
    expect(list).toContain('ported@example.com');
    // Their own groups they always see by name.
    const viewerAdmin = running.context.admins.findByEmail('viewer@example.com')!;
    running.context.adminGroups.setGroupsOf(viewerAdmin.id, [...running.context.adminGroups.groupIdsOf(viewerAdmin.id), bGroup.value.id]);
    expect(textOf((await viewer.get('/admin/admins')).body)).toContain('Agency B secret team');
  });

  it('saves the groups chosen on the form, refusing one that is not there', async () => {
    const scope = running.context.adminGroups.createScope({ name: 'Weather', host: 'api.example.com', path_prefix: '/weather/' });
    if (!scope.ok) throw new Error(JSON.stringify(scope.errors));
    const groupOf = (name: string) => {
      const created = running.context.adminGroups.createGroup({ name, api_scope_ids: [scope.value.id], permission_ids: ['analytics'] });
      if (!created.ok) throw new Error(JSON.stringify(created.errors));
      return created.value.id;
    };
    const weather = groupOf('Weather team');
    const traffic = groupOf('Traffic team');
    expect(textOf((await client.get('/admin/admins/new')).body)).toContain('Groups An admin who is not a superuser belongs to one group at least, and can do only what their groups grant. Traffic team Weather team');
    const added = await client.post('/admin/admins', { email: 'member@example.com', password: PASSWORD, password_confirmation: PASSWORD, enabled: '1', group_ids: [weather, traffic] });
    expect(textOf((await client.follow(added)).body)).toContain('member@example.com Admin Enabled Traffic team Weather team');
    const member = running.context.admins.findByEmail('member@example.com')!;
    expect(running.context.adminGroups.groupIdsOf(member.id).sort()).toEqual([weather, traffic].sort());

    const edit = await client.get(`/admin/admins/${member.id}/edit`);
    expect(edit.body).toMatch(new RegExp(`name="group_ids" value="${weather}" checked`));
    const unknown = await client.post(`/admin/admins/${member.id}`, { email: 'member@example.com', enabled: '1', group_ids: [weather, 'no-such-group'] });
    expect(unknown.statusCode).toBe(422);
    expect(textOf(unknown.body)).toContain('Groups contains "no-such-group", which is no admin group');
    expect(running.context.adminGroups.groupIdsOf(member.id)).toHaveLength(2);

    // Not out of every group: as API Umbrella, an admin who is no superuser belongs to one.
    const emptied = await client.post(`/admin/admins/${member.id}`, { email: 'member@example.com', enabled: '1' });
    expect(emptied.statusCode).toBe(422);
    expect(textOf(emptied.body)).toContain('Groups must belong to at least one group or be a superuser');
    expect(running.context.adminGroups.groupIdsOf(member.id)).toHaveLength(2);
    const narrowed = await client.post(`/admin/admins/${member.id}`, { email: 'member@example.com', enabled: '1', group_ids: weather });
    expect(textOf((await client.follow(narrowed)).body)).toContain('member@example.com Admin Enabled Weather team');
  });

  it('marks an admin added through the admin API without a password, who cannot sign in until one is set', async () => {
    const token = running.context.admins.regenerateToken(running.context.admins.findByEmail('ops@example.com')!.id)!;
    const created = await running.app.inject({
      method: 'POST',
      url: '/api-umbrella/v1/admins.json',
      headers: { 'x-admin-auth-token': token, 'content-type': 'application/json' },
      payload: JSON.stringify({ admin: { username: 'Invited@Example.com', superuser: true } }),
    });
    expect(created.statusCode).toBe(201);
    const text = textOf((await client.get('/admin/admins')).body);
    expect(text).toContain('invited@example.com Superuser Enabled No password');
    expect(text.match(/No password/g)).toHaveLength(1);
    for (const password of ['', PASSWORD]) {
      const refused = await new AdminClient(running.app).signIn('invited@example.com', password);
      expect(refused.statusCode).toBe(401);
      expect(textOf(refused.body)).toContain('Invalid email or password.');
    }
    // What `parasol admins reset-password` does.
    await running.context.admins.setPassword(created.json().admin.id, PASSWORD);
    expect((await new AdminClient(running.app).signIn('Invited@example.com', PASSWORD)).statusCode).toBe(303);
    expect(textOf((await client.get('/admin/admins')).body)).not.toContain('No password');
  });

  it('marks superusers, and admins in no group as having no permissions', async () => {
    await createAdmin(running.context, 'plain@example.com', false);
    const text = textOf((await client.get('/admin/admins')).body);
    expect(text).toContain('ops@example.com You Superuser Enabled');
    expect(text).toContain('plain@example.com Admin Enabled No permissions');
    expect(text.match(/No permissions/g)).toHaveLength(1);
  });

  it('searches by email or name as the admin API does, ignoring case, and pages by 50 with the search kept', async () => {
    for (let index = 1; index <= 60; index++) {
      const number = String(index).padStart(2, '0');
      await running.context.admins.create({ email: `member-${number}@example.com`, name: index === 7 ? 'Ledger Keeper' : `Member ${number}`, superuser: false });
    }
    const first = textOf((await client.get('/admin/admins')).body);
    expect(first).toContain('Showing 1–50 of 61');
    const searched = await client.get('/admin/admins?search=MEMBER-');
    expect(textOf(searched.body)).toContain('Showing 1–50 of 60');
    expect(textOf(searched.body)).toContain('member-50@example.com');
    expect(textOf(searched.body)).not.toContain('member-51@example.com');
    expect(searched.body).toContain('value="MEMBER-"');
    expect(searched.body).toContain('href="/admin/admins?page=2&amp;search=MEMBER-"');
    const second = textOf((await client.get('/admin/admins?page=2&search=MEMBER-')).body);
    expect(second).toContain('Showing 51–60 of 60');
    expect(second).toContain('member-60@example.com');
    expect(second).not.toContain('member-50@example.com');
    await expectTwoPagesPager(client, '/admin/admins', 'search=member-');

    // By name (the admin API's search[value] over name and email), and the whole id.
    const byName = textOf((await client.get('/admin/admins?search=ledger')).body);
    expect(byName).toContain('member-07@example.com');
    expect(byName).not.toContain('member-08@example.com');
    expect(byName).not.toContain('Showing');
    const member42 = running.context.admins.findByEmail('member-42@example.com')!;
    const byId = textOf((await client.get(`/admin/admins?search=${member42.id.toUpperCase()}`)).body);
    expect(byId).toContain('member-42@example.com');
    expect(byId).not.toContain('member-41@example.com');

    const none = await client.get('/admin/admins?search=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(none.statusCode).toBe(200);
    expect(textOf(none.body)).toContain('No admin accounts match “<script>alert(1)</script>” Try part of an email address or a name, or show every admin account');
    expect(none.body).not.toContain('<script>alert(1)');
    expect(none.body).toContain('href="/admin/admins"');
  });

  it('searches only the admins an admin_view holder is shown', async () => {
    const viewable = { host: 'api.example.com', path_prefix: '/agency-a/' };
    await createScopedAdmin(running.context, { email: 'viewer@example.com', scopes: [viewable], permissions: ['admin_view'] });
    await createScopedAdmin(running.context, { email: 'same-scope@example.com', scopes: [viewable], permissions: ['analytics'] });
    await createScopedAdmin(running.context, { email: 'other-agency@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/agency-b/' }], permissions: ['analytics'] });
    const viewer = new AdminClient(running.app);
    await viewer.signIn('viewer@example.com', SCOPED_PASSWORD);
    const shown = (search: string) => viewer.get(`/admin/admins?search=${search}`).then((page) => [...page.body.matchAll(/<td>([^<\s]+@example\.com)/g)].map((match) => match[1]).sort());
    expect(await shown('example.com')).toEqual(['same-scope@example.com', 'viewer@example.com']);
    expect(await shown('agency')).toEqual([]);
    expect(textOf((await viewer.get('/admin/admins?search=other-agency')).body)).toContain('No admin accounts match “other-agency”');
    expect(await shown('ops')).toEqual([]);
  });
});

describe('My Account', () => {
  it('changes the password after checking the current one, and signs out other sessions', async () => {
    const elsewhere = new AdminClient(running.app);
    await elsewhere.signIn();
    await client.get('/admin/account');
    const wrong = await client.post('/admin/account/password', { current_password: 'not my password!!', password: `${PASSWORD} 2`, password_confirmation: `${PASSWORD} 2` });
    expect(wrong.statusCode).toBe(422);
    expect(textOf(wrong.body)).toContain('Current Password is not correct');
    const changed = await client.post('/admin/account/password', { current_password: PASSWORD, password: `${PASSWORD} 2`, password_confirmation: `${PASSWORD} 2` });
    expect(textOf((await client.follow(changed)).body)).toContain('Your password has been changed.');
    expect((await client.get('/admin/apis')).statusCode).toBe(200);
    expect((await elsewhere.get('/admin/apis')).statusCode).toBe(303);
    expect((await new AdminClient(running.app).signIn('ops@example.com', `${PASSWORD} 2`)).statusCode).toBe(303);
  });

  it('counts wrong current passwords toward the sign-in lockout, and a change is no sign-in', async () => {
    const change = (current: string) => client.post('/admin/account/password', { current_password: current, password: `${PASSWORD} 2`, password_confirmation: `${PASSWORD} 2` });
    await client.get('/admin/account');
    for (let attempt = 0; attempt < 5; attempt++) expect((await change(`wrong guess number ${attempt}`)).statusCode).toBe(422);
    const locked = await change(PASSWORD);
    expect(locked.statusCode).toBe(422);
    expect(textOf(locked.body)).toContain('Current Password was tried too often; try again in 15 minutes');
    expect(await running.context.admins.authenticate('ops@example.com', PASSWORD, '127.0.0.1')).not.toBeNull();

    const other = await createAdmin(running.context, 'other@example.com');
    const otherClient = new AdminClient(running.app, '192.0.2.44');
    await otherClient.signIn('other@example.com', PASSWORD);
    const signedInAt = running.context.admins.get(other.id)!.last_sign_in_at;
    await otherClient.get('/admin/account');
    const changed = await otherClient.post('/admin/account/password', { current_password: PASSWORD, password: `${PASSWORD} 2`, password_confirmation: `${PASSWORD} 2` });
    expect(changed.statusCode).toBe(303);
    expect(running.context.admins.get(other.id)!.last_sign_in_at).toBe(signedInAt);
  });

  it('answers a current password left empty "can\'t be blank", and does not count it toward the lockout', async () => {
    const change = (current: string) => client.post('/admin/account/password', { current_password: current, password: `${PASSWORD} 2`, password_confirmation: `${PASSWORD} 2` });
    await client.get('/admin/account');
    for (let attempt = 0; attempt < 6; attempt++) {
      const blank = await change('');
      expect(blank.statusCode).toBe(422);
      expect(textOf(blank.body)).toContain("Current Password can't be blank");
    }
    expect((await change(PASSWORD)).statusCode).toBe(303);
  });

  it('is signed out of every browser when the password is reset from the command line', async () => {
    const admin = running.context.admins.findByEmail('ops@example.com')!;
    expect((await client.get('/admin/apis')).statusCode).toBe(200);
    // What `parasol admins reset-password` does, e.g. after the account was taken over.
    await running.context.admins.setPassword(admin.id, `${PASSWORD} reset`);
    expect((await client.get('/admin/apis')).statusCode).toBe(303);
  });

  it('shows the Admin API Token preview and regenerates it once, working with X-Admin-Auth-Token', async () => {
    const page = await client.get('/admin/account');
    expect(textOf(page.body)).toContain('Admin API Token');
    const response = await client.post('/admin/account/token', { confirmed: '1' });
    const token = /id="admin-token"[^>]*value="([A-Za-z0-9]{40})"/.exec(response.body)?.[1];
    expect(token).toBeDefined();
    const api = await running.app.inject({ url: '/api-umbrella/v1/apis', headers: { 'x-admin-auth-token': token! } });
    expect(api.statusCode).toBe(200);
    expect((await client.get('/admin/account')).body).toContain(`value="${token!.slice(0, 6)}..."`);
  });
});
