// /api-umbrella/v1/admins over a real socket: admin accounts for scripts, as
// the web admin's Admin Accounts shows and changes them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LastSuperuserError } from '../../src/admins/repository.js';
import { EMPTY_LIST } from '../helpers/admin-api.js';
import { startTestGateway, type AdminApiReply, type TestGateway } from '../helpers/gateway.js';
import { createScopedAdmin, SCOPED_PASSWORD } from '../helpers/scoped-admin.js';
import { HttpAdminClient } from '../admin-ui/helpers/http-client.js';

const PASSWORD = 'a long enough passphrase';
const LAST_SUPERUSER = new LastSuperuserError().message;
const GROUPS_NEEDED = 'must belong to at least one group or be a superuser';
const ADMIN_FIELDS = [
  'auth_token_preview', 'created_at', 'current_sign_in_at', 'current_sign_in_ip', 'email', 'enabled', 'group_ids', 'group_names', 'id',
  'last_sign_in_at', 'last_sign_in_ip', 'name', 'notes', 'sign_in_count', 'superuser', 'updated_at', 'username',
];
const AGENCY_A = { host: 'api.example.com', path_prefix: '/agency-a/' };

let gw: TestGateway;
let rootId: string;

beforeEach(async () => {
  gw = await startTestGateway();
  rootId = gw.context.admins.list()[0]!.id;
});
afterEach(() => gw.stop());

/** The admin API as the admin holding `token`; a string body is sent as it is (malformed JSON, form fields). */
const call = (token: string, method: string, path: string, body?: unknown, contentType?: string) => gw.adminApiAs(token, method, path, body, contentType);

const asRoot = (method: string, path: string, body?: unknown) => call(gw.adminToken, method, path, body);

/** Added through the API with PASSWORD; a superuser unless told otherwise (an admin who is none must be in a group). */
async function createAdmin(fields: Record<string, unknown>): Promise<Record<string, any>> {
  const created = await asRoot('POST', '/admins', { admin: { password: PASSWORD, superuser: !Object.hasOwn(fields, 'group_ids'), ...fields } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.admin;
}

/** An admin in no group, as an older Parasol, or deleting their only group, left them (the API refuses to make one). */
async function createGrouplessAdmin(email: string): Promise<{ id: string; authToken: string }> {
  const { admin, authToken } = (await gw.context.admins.create({ email, password: PASSWORD, superuser: false }))!;
  return { id: admin.id, authToken };
}

/** A 422's errors as API Umbrella lists them for /admins, each {code, field, message, full_message}, read back as field → messages. */
function errorsOf(answer: AdminApiReply): Record<string, string[]> {
  expect(answer.status, JSON.stringify(answer.body)).toBe(422);
  expect(Array.isArray(answer.body.errors), JSON.stringify(answer.body)).toBe(true);
  const errors: Record<string, string[]> = {};
  for (const error of answer.body.errors) {
    expect(Object.keys(error).sort()).toEqual(['code', 'field', 'full_message', 'message']);
    expect(error.code).toBe('INVALID_INPUT');
    (errors[error.field] ??= []).push(error.message);
  }
  return errors;
}

/** A group granting `permissions` within the agency A scope. */
function agencyGroup(name: string, permissions: ('user_view' | 'analytics')[]): string {
  const scope = gw.context.adminGroups.listScopes().find((known) => known.path_prefix === AGENCY_A.path_prefix);
  const scopeId = scope?.id ?? (gw.context.adminGroups.createScope({ name: 'Agency A', ...AGENCY_A }) as { value: { id: string } }).value.id;
  const group = gw.context.adminGroups.createGroup({ name, api_scope_ids: [scopeId], permission_ids: permissions });
  if (!group.ok) throw new Error(JSON.stringify(group.errors));
  return group.value.id;
}

function expectForbidden(answer: AdminApiReply): void {
  expect(answer.status).toBe(403);
  expect(answer.body.errors[0].code).toBe('FORBIDDEN');
}

const emailsOf = (admins: readonly { email: string }[]) => admins.map((admin) => admin.email).sort();

describe('reading admins', () => {
  it("lists and reads admins in API Umbrella's shapes, without a password or token hash", async () => {
    const groupId = agencyGroup('Agency A viewers', ['user_view']);
    const created = await createAdmin({ email: 'listed@example.com', group_ids: [groupId] });
    const list = await asRoot('GET', '/admins?draw=3');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ draw: 3, recordsTotal: 2, recordsFiltered: 2 });
    for (const admin of list.body.data) expect(Object.keys(admin).sort()).toEqual(ADMIN_FIELDS);
    const { authentication_token: token, ...shown } = created;
    expect(list.body.data.find((admin: { id: string }) => admin.id === created.id)).toEqual(shown);
    expect(shown).toMatchObject({ username: 'listed@example.com', email: 'listed@example.com', name: null, notes: null, superuser: false, enabled: true, group_ids: [groupId], group_names: ['Agency A viewers'] });
    // Never signed in (sign-in-tracking.test.ts signs in).
    expect(shown).toMatchObject({ sign_in_count: 0, current_sign_in_at: null, last_sign_in_at: null, current_sign_in_ip: null, last_sign_in_ip: null });
    expect(shown.auth_token_preview).toMatch(/^.+\.\.\.$/);
    expect(JSON.stringify(list.body)).not.toMatch(/hash|password/);
    expect(JSON.stringify(list.body)).not.toContain(token);

    expect(await asRoot('GET', `/admins/${created.id}`)).toMatchObject({ status: 200, body: { admin: shown } });
    expect((await asRoot('GET', `/admins/${created.id}.json`)).body).toEqual({ admin: shown });
    expect((await asRoot('GET', '/admins.json?length=1')).body.data).toHaveLength(1);
    expect(await asRoot('GET', '/admins/no-such-admin')).toMatchObject({ status: 404, body: { error: 'Not Found' } });
  });

  it('shows an admin_view holder the admins Admin Accounts shows them, with only the group ids wholly in their scopes', async () => {
    const viewer = await createScopedAdmin(gw.context, { email: 'viewer@example.com', scopes: [AGENCY_A], permissions: ['admin_view'] });
    const sameScope = await createScopedAdmin(gw.context, { email: 'same-scope@example.com', scopes: [AGENCY_A], permissions: ['analytics'] });
    const otherAgency = await createScopedAdmin(gw.context, { email: 'other-agency@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/agency-b/' }], permissions: ['analytics'] });
    // In the viewer's scope and, by another group, in agency B's.
    const both = await createScopedAdmin(gw.context, { email: 'both@example.com', scopes: [AGENCY_A], permissions: ['analytics'] });
    gw.context.adminGroups.setGroupsOf(both.admin.id, [both.groupId, otherAgency.groupId]);
    // The viewer's own groups are theirs to see, agency B's too.
    gw.context.adminGroups.setGroupsOf(viewer.admin.id, [viewer.groupId, otherAgency.groupId]);
    await createGrouplessAdmin('in-no-group@example.com');

    const list = await call(viewer.authToken, 'GET', '/admins');
    expect(list.status).toBe(200);
    expect(emailsOf(list.body.data)).toEqual(['both@example.com', 'same-scope@example.com', 'viewer@example.com']);
    expect(list.body.recordsTotal).toBe(3);
    const byEmail = (email: string) => list.body.data.find((admin: { email: string }) => admin.email === email);
    expect(byEmail('both@example.com').group_ids).toEqual([both.groupId]);
    expect(byEmail('both@example.com').group_names).toEqual(['group of both@example.com']);
    expect([...byEmail('viewer@example.com').group_ids].sort()).toEqual([viewer.groupId, otherAgency.groupId].sort());

    expect((await call(viewer.authToken, 'GET', `/admins/${sameScope.admin.id}`)).body.admin.email).toBe('same-scope@example.com');
    // Token previews, however short, only of their own account.
    expect(byEmail('both@example.com').auth_token_preview).toBeNull();
    expect(byEmail('viewer@example.com').auth_token_preview).toBe(`${viewer.authToken.slice(0, 6)}...`);
    // Not told that an admin out of sight exists.
    expect(await call(viewer.authToken, 'GET', `/admins/${otherAgency.admin.id}`)).toMatchObject({ status: 404, body: { error: 'Not Found' } });
    expect((await call(viewer.authToken, 'GET', `/admins/${rootId}.json`)).status).toBe(404);
    // A superuser sees everyone, with every group.
    const everyone = await asRoot('GET', '/admins');
    expect(everyone.body.data).toHaveLength(6);
    expect((await asRoot('GET', `/admins/${both.admin.id}`)).body.admin.group_ids.sort()).toEqual([both.groupId, otherAgency.groupId].sort());
  });

  it('answers admins without admin_view an empty list and refuses them other accounts, but lets them read their own, as API Umbrella does', async () => {
    const analyst = await createScopedAdmin(gw.context, { email: 'analyst@example.com', scopes: [AGENCY_A], permissions: ['analytics', 'user_manage'] });
    const { admin: plain, authToken: plainToken } = (await gw.context.admins.create({ email: 'plain@example.com', password: PASSWORD, superuser: false }))!;
    for (const token of [analyst.authToken, plainToken]) {
      const list = await call(token, 'GET', '/admins');
      expect({ status: list.status, body: list.body }).toEqual({ status: 200, body: EMPTY_LIST });
    }
    expectForbidden(await call(analyst.authToken, 'GET', `/admins/${plain.id}`));
    expectForbidden(await call(plainToken, 'GET', `/admins/${analyst.admin.id}.json`));

    const own = await call(analyst.authToken, 'GET', `/admins/${analyst.admin.id}.json`);
    expect(own.status).toBe(200);
    expect(own.body.admin).toMatchObject({ id: analyst.admin.id, email: 'analyst@example.com', group_ids: [analyst.groupId], auth_token_preview: `${analyst.authToken.slice(0, 6)}...` });
    expect((await call(plainToken, 'GET', `/admins/${plain.id}`)).body.admin).toMatchObject({ id: plain.id, group_ids: [], group_names: [] });
    // Reading only: changing their own account still takes admin_manage.
    expectForbidden(await call(analyst.authToken, 'PUT', `/admins/${analyst.admin.id}`, { admin: { name: 'Me' } }));
  });
});

describe('adding admins', () => {
  it("adds an admin with groups: the token shown once works at once, within the groups' permissions, and they can sign in", async () => {
    const viewers = agencyGroup('User viewers', ['user_view']);
    const created = await asRoot('POST', '/admins.json', { admin: { email: 'New@Example.com ', password: PASSWORD, password_confirmation: PASSWORD, group_ids: [viewers] } });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const admin = created.body.admin;
    expect(Object.keys(admin).sort()).toEqual([...ADMIN_FIELDS, 'authentication_token'].sort());
    // Lowercased, as API Umbrella saves usernames.
    expect(admin).toMatchObject({ username: 'new@example.com', email: 'new@example.com', superuser: false, enabled: true, group_ids: [viewers] });
    expect(admin.auth_token_preview).toBe(`${admin.authentication_token.slice(0, 6)}...`);
    expect((await call(admin.authentication_token, 'GET', '/users')).status).toBe(200);
    expectForbidden(await call(admin.authentication_token, 'POST', '/apis', { api: {} }));
    expect(await gw.context.admins.authenticate('New@Example.com', PASSWORD, '127.0.0.1')).toMatchObject({ id: admin.id });
  });

  it("refuses an admin who is neither a superuser nor in a group, in API Umbrella's words, and adds a superuser, who may do everything", async () => {
    for (const groups of [{}, { group_ids: [] }, { superuser: false, group_ids: [] }]) {
      const refused = await asRoot('POST', '/admins', { admin: { email: 'nobody@example.com', password: PASSWORD, ...groups } });
      expect(errorsOf(refused), JSON.stringify(groups)).toEqual({ groups: [GROUPS_NEEDED] });
      expect(refused.body.errors[0].full_message).toBe('Groups: must belong to at least one group or be a superuser');
    }
    expect(gw.context.admins.findByEmail('nobody@example.com')).toBeNull();
    const superuser = await createAdmin({ email: 'second-root@example.com', superuser: true });
    expect(superuser).toMatchObject({ superuser: true, group_ids: [], group_names: ['Superuser'] });
    expect((await call(superuser.authentication_token, 'GET', '/api_scopes')).status).toBe(200);
  });

  it("answers API Umbrella's required validations for an empty admin as its list of errors", async () => {
    // test/apis/v1/admins/test_create.rb test_required_validations
    const refused = await asRoot('POST', '/admins.json', { admin: {} });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map((error: { full_message: string }) => error.full_message).sort()).toEqual([
      "Email: can't be blank",
      'Groups: must belong to at least one group or be a superuser',
    ]);
    expect(refused.body.errors).toContainEqual({ code: 'INVALID_INPUT', field: 'email', message: "can't be blank", full_message: "Email: can't be blank" });
  });

  it("takes API Umbrella's username as the email, lowercased, and makes the admin without a password", async () => {
    // test/apis/v1/admins/test_create.rb test_downcases_username, with no password (API Umbrella mails an invitation).
    const created = await asRoot('POST', '/admins.json', { admin: { username: 'HELLO@example.com', superuser: true } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const admin = created.body.admin;
    expect(admin).toMatchObject({ username: 'hello@example.com', email: 'hello@example.com', superuser: true });
    expect(gw.context.admins.get(admin.id)).toMatchObject({ email: 'hello@example.com', has_password: false });
    // The token answered now works; no password signs in, not even an empty one, until one is set.
    expect((await call(admin.authentication_token, 'GET', '/admins')).status).toBe(200);
    for (const password of ['', PASSWORD]) expect(await gw.context.admins.authenticate('hello@example.com', password, '127.0.0.1')).toBeNull();
    await gw.context.admins.setPassword(admin.id, PASSWORD);
    expect(await gw.context.admins.authenticate('HELLO@Example.COM', PASSWORD, '127.0.0.1')).toMatchObject({ id: admin.id });

    // A username taken in another case is taken.
    expect(errorsOf(await asRoot('POST', '/admins', { admin: { username: 'Hello@Example.com', superuser: true } }))).toEqual({ email: ['has already been taken'] });
    // Username and email are one field: sent both, the username is the one (as API Umbrella copies it over the email).
    const both = await asRoot('POST', '/admins', { admin: { username: 'Both@example.com', email: 'other@example.com', superuser: true } });
    expect(both.body.admin).toMatchObject({ username: 'both@example.com', email: 'both@example.com' });
    // One of them blank (a null username beside an email) gives way to the other.
    expect((await asRoot('POST', '/admins', { admin: { username: null, email: 'Email-Only@example.com', superuser: true } })).body.admin.email).toBe('email-only@example.com');
    // A blank password, as a form sends its empty field, is none; a confirmation without a password is refused.
    expect((await asRoot('POST', '/admins', { admin: { email: 'blank@example.com', superuser: true, password: '', password_confirmation: null } })).status).toBe(201);
    expect(gw.context.admins.findByEmail('blank@example.com')?.has_password).toBe(false);
    expect(errorsOf(await asRoot('POST', '/admins', { admin: { email: 'half@example.com', superuser: true, password_confirmation: PASSWORD } }))).toEqual({ password: ["can't be blank"] });
  });

  it("keeps API Umbrella's name and notes, searches by name, and refuses a name over 255 characters", async () => {
    const admin = await createAdmin({ email: 'named@example.com', name: 'Ada Lovelace', notes: 'Runs the weather APIs.\nOn call in March.' });
    expect(admin).toMatchObject({ name: 'Ada Lovelace', notes: 'Runs the weather APIs.\nOn call in March.' });
    expect((await asRoot('GET', `/admins/${admin.id}`)).body.admin).toMatchObject({ name: 'Ada Lovelace', notes: 'Runs the weather APIs.\nOn call in March.' });
    expect((await asRoot('GET', '/admins?search[value]=lovelace')).body.data.map((row: { id: string }) => row.id)).toEqual([admin.id]);
    expect(errorsOf(await asRoot('POST', '/admins', { admin: { email: 'long@example.com', superuser: true, name: 'x'.repeat(256), notes: 5 } }))).toEqual({
      name: ['is too long (maximum is 255 characters)'],
      notes: ['must be text'],
    });
    // Kept when a change does not name them, cleared by null.
    expect((await asRoot('PUT', `/admins/${admin.id}`, { admin: { enabled: true } })).body.admin).toMatchObject({ name: 'Ada Lovelace', notes: 'Runs the weather APIs.\nOn call in March.' });
    expect((await asRoot('PUT', `/admins/${admin.id}`, { admin: { name: 'Ada King', notes: null } })).body.admin).toMatchObject({ name: 'Ada King', notes: null });
  });

  it('adds a disabled admin, whose token and password do not work', async () => {
    const disabled = await createAdmin({ email: 'disabled@example.com', enabled: false });
    expect(disabled.enabled).toBe(false);
    expect((await call(disabled.authentication_token, 'GET', '/admins')).status).toBe(401);
    expect(await gw.context.admins.authenticate('disabled@example.com', PASSWORD, '127.0.0.1')).toBeNull();
  });

  it('takes a bare object and form fields, the groups as a list', async () => {
    const groupId = agencyGroup('Form group', ['analytics']);
    const bare = await asRoot('POST', '/admins', { email: 'bare@example.com', password: PASSWORD, superuser: true });
    expect(bare.status).toBe(201);
    const form = new URLSearchParams({ 'admin[email]': 'form@example.com', 'admin[password]': PASSWORD, 'admin[superuser]': '0', 'admin[group_ids][]': groupId });
    const fromForm = await call(gw.adminToken, 'POST', '/admins', form.toString(), 'application/x-www-form-urlencoded');
    expect(fromForm.status).toBe(201);
    expect(fromForm.body.admin).toMatchObject({ email: 'form@example.com', superuser: false, group_ids: [groupId] });
  });

  it('answers 422 for what the web form refuses, and adds nobody', async () => {
    const refused = async (fields: Record<string, unknown>) => errorsOf(await asRoot('POST', '/admins', { admin: { superuser: true, ...fields } }));
    expect(await refused({ password: 'short' })).toEqual({ email: ["can't be blank"], password: ['is too short (minimum is 14 characters)'] });
    expect(await refused({ email: 'not-an-email', password: 'x'.repeat(73) })).toEqual({ email: ['is invalid'], password: ['is too long (maximum is 72 characters)'] });
    // A confirmation, when sent, must match (createAdmin sends none: then it is not asked for).
    expect(await refused({ email: 'typo@example.com', password: PASSWORD, password_confirmation: `${PASSWORD}!` })).toEqual({ password_confirmation: ["doesn't match Password"] });
    expect(await refused({ email: 'number@example.com', password: PASSWORD, password_confirmation: 12345 })).toEqual({ password_confirmation: ["doesn't match Password"] });
    expect(await refused({ email: 'flags@example.com', password: PASSWORD, superuser: 'maybe', enabled: null, group_ids: ['no-such-group'] })).toEqual({
      superuser: ['must be true or false'],
      enabled: ['must be true or false'],
      group_ids: ['contains "no-such-group", which is no admin group'],
    });
    expect(gw.context.admins.list()).toHaveLength(1);
  });

  it('refuses an email already taken, in any case, and groups that are not there', async () => {
    await createAdmin({ email: 'taken@example.com' });
    expect(errorsOf(await asRoot('POST', '/admins', { admin: { email: 'TAKEN@example.com', password: PASSWORD, superuser: true } }))).toEqual({ email: ['has already been taken'] });
    const groupId = agencyGroup('Real group', ['analytics']);
    const unknown = await asRoot('POST', '/admins', { admin: { email: 'grouped@example.com', password: PASSWORD, group_ids: [groupId, 'no-such-group'] } });
    expect(errorsOf(unknown)).toEqual({ group_ids: ['contains "no-such-group", which is no admin group'] });
    expect(gw.context.admins.findByEmail('grouped@example.com')).toBeNull();
  });
});

describe('changing admins', () => {
  it('changes the email, flags and groups it names and keeps the others', async () => {
    const viewers = agencyGroup('Viewers', ['user_view']);
    const analysts = agencyGroup('Analysts', ['analytics']);
    const admin = await createAdmin({ email: 'changing@example.com', group_ids: [viewers] });
    // As API Umbrella: 200 with the account as it now is, as GET reads it.
    const changed = await asRoot('PUT', `/admins/${admin.id}`, { admin: { email: 'Changed@Example.com', group_ids: [analysts] } });
    expect(changed.status).toBe(200);
    expect(changed.body.admin).toMatchObject({ username: 'changed@example.com', email: 'changed@example.com', superuser: false, enabled: true, group_ids: [analysts] });
    expect(changed.body).toEqual((await asRoot('GET', `/admins/${admin.id}`)).body);
    // The groups apply from the next request.
    expectForbidden(await call(admin.authentication_token, 'GET', '/users/no-such-user'));

    expect((await asRoot('PUT', `/admins/${admin.id}.json`, { superuser: true })).body.admin.superuser).toBe(true);
    expect((await call(admin.authentication_token, 'GET', '/users/no-such-user')).status).toBe(404);
    expect((await asRoot('PUT', `/admins/${admin.id}`, { admin: { superuser: false, enabled: false } })).status).toBe(200);
    expect((await call(admin.authentication_token, 'GET', '/users')).status).toBe(401);
    expect((await asRoot('GET', `/admins/${admin.id}`)).body.admin).toMatchObject({ email: 'changed@example.com', superuser: false, enabled: false, group_ids: [analysts] });
  });

  it("takes back what a script read, changed in the username (API Umbrella's) or the email (Parasol's), answering 200 with the admin", async () => {
    // test/apis/v1/admins/test_admin_permissions.rb assert_admin_permitted_update: the record read, its username changed, all sent back.
    const admin = await createAdmin({ email: 'roundtrip@example.com', name: 'Round Trip' });
    const { authentication_token: _token, ...read } = admin;
    const byUsername = await asRoot('PUT', `/admins/${admin.id}.json`, { admin: { ...read, username: `${read.username}123` } });
    expect(byUsername.status).toBe(200);
    expect(byUsername.body.admin).toMatchObject({ username: 'roundtrip@example.com123', email: 'roundtrip@example.com123', name: 'Round Trip' });
    const again = byUsername.body.admin;
    const byEmail = await asRoot('PUT', `/admins/${admin.id}`, { admin: { ...again, email: 'Round-Trip@example.com' } });
    expect(byEmail.body.admin).toMatchObject({ username: 'round-trip@example.com', email: 'round-trip@example.com' });
    // Both changed, differently: the username, as API Umbrella.
    const both = await asRoot('PUT', `/admins/${admin.id}`, { admin: { username: 'by-username@example.com', email: 'by-email@example.com' } });
    expect(both.body.admin.email).toBe('by-username@example.com');
    // Sent back unchanged, read-only fields and all (a blank password is no password), it changes nothing.
    const unchanged = await asRoot('PUT', `/admins/${admin.id}`, { admin: { ...both.body.admin, password: '', password_confirmation: '' } });
    expect(unchanged.status).toBe(200);
    expect({ ...unchanged.body.admin, updated_at: null }).toEqual({ ...both.body.admin, updated_at: null });
  });

  it('refuses to leave an admin in no group unless a superuser, and lets one already in none be changed otherwise', async () => {
    const groupId = agencyGroup('Only group', ['analytics']);
    const member = await createAdmin({ email: 'member@example.com', group_ids: [groupId] });
    expect(errorsOf(await asRoot('PUT', `/admins/${member.id}`, { admin: { group_ids: [] } }))).toEqual({ groups: [GROUPS_NEEDED] });
    const root = await createAdmin({ email: 'root-2@example.com' });
    expect(errorsOf(await asRoot('PUT', `/admins/${root.id}`, { admin: { superuser: false } }))).toEqual({ groups: [GROUPS_NEEDED] });
    expect(gw.context.adminGroups.groupIdsOf(member.id)).toEqual([groupId]);
    expect(gw.context.admins.get(root.id)!.superuser).toBe(true);
    // Demoted into a group, or into none with a group at once, is fine.
    expect((await asRoot('PUT', `/admins/${root.id}`, { admin: { superuser: false, group_ids: [groupId] } })).body.admin).toMatchObject({ superuser: false, group_ids: [groupId] });

    // Left in no group (by an older Parasol, or by deleting their only group): still disabled, renamed, without a group first.
    const legacy = await createGrouplessAdmin('legacy@example.com');
    const disabled = await asRoot('PUT', `/admins/${legacy.id}`, { admin: { enabled: false, email: 'Legacy-Disabled@example.com', group_ids: [] } });
    expect(disabled.body.admin).toMatchObject({ email: 'legacy-disabled@example.com', enabled: false, group_ids: [] });
  });

  it('refuses a password, a taken email, unknown groups and unclear flags, changing nothing', async () => {
    const groupId = agencyGroup('Kept group', ['analytics']);
    const admin = await createAdmin({ email: 'kept@example.com', group_ids: [groupId] });
    await createAdmin({ email: 'other@example.com' });
    const refused = async (body: unknown) => errorsOf(await asRoot('PUT', `/admins/${admin.id}`, { admin: body }));
    expect((await refused({ password: 'another long passphrase' })).password![0]).toMatch(/My Account.*parasol admins reset-password/);
    expect(await refused({ email: 'OTHER@example.com' })).toEqual({ email: ['has already been taken'] });
    expect(await refused({ username: 'other@example.com' })).toEqual({ email: ['has already been taken'] });
    expect(await refused({ email: '' })).toEqual({ email: ["can't be blank"] });
    expect(await refused({ group_ids: ['no-such-group'] })).toEqual({ group_ids: ['contains "no-such-group", which is no admin group'] });
    expect(await refused({ enabled: 'perhaps' })).toEqual({ enabled: ['must be true or false'] });
    // Groups in a shape that is no list are refused, not read as "no groups" (which would take them all away).
    for (const groups of [[{ id: groupId }], [123], null, 5, true, { x: groupId }]) {
      expect(await refused({ group_ids: groups }), JSON.stringify(groups)).toEqual({ group_ids: ['must be a list of admin group ids'] });
    }
    const { authentication_token: _token, ...unchanged } = admin;
    expect((await asRoot('GET', `/admins/${admin.id}`)).body.admin).toEqual(unchanged);
    expect(await gw.context.admins.authenticate('kept@example.com', PASSWORD, '127.0.0.1')).not.toBeNull();
  });

  it('answers 404 for an unknown admin', async () => {
    expect(await asRoot('PUT', '/admins/no-such-admin', { admin: { enabled: true } })).toMatchObject({ status: 404, body: { error: 'Not Found' } });
  });
});

describe('disabling admins', () => {
  it('ends their web admin sessions: enabling them again brings none back', async () => {
    const admin = await createAdmin({ email: 'paused@example.com', superuser: true });
    const browser = new HttpAdminClient(gw.url);
    expect((await browser.signIn('paused@example.com', PASSWORD)).location).toBe('/admin/');
    expect((await browser.get('/admin/apis')).status).toBe(200);
    const cookie = browser.cookies.get('parasol_admin_session')!;

    expect((await asRoot('PUT', `/admins/${admin.id}`, { admin: { enabled: false } })).status).toBe(200);
    expect((await asRoot('PUT', `/admins/${admin.id}`, { admin: { enabled: true } })).status).toBe(200);
    const old = await browser.get('/admin/apis');
    expect(old.status).toBe(303);
    expect(old.location).toMatch(/^\/admin\/login/);
    expect(browser.cookies.get('parasol_admin_session')).toBe(cookie);
    // They may sign in again, with a new session.
    expect((await browser.signIn('paused@example.com', PASSWORD)).location).toBe('/admin/');
    expect(browser.cookies.get('parasol_admin_session')).not.toBe(cookie);
    expect((await browser.get('/admin/apis')).status).toBe(200);
  });
});

describe('deleting admins', () => {
  it('deletes an admin (204), whose token stops working, then answers 404', async () => {
    const admin = await createAdmin({ email: 'leaving@example.com', superuser: true });
    expect((await asRoot('DELETE', `/admins/${admin.id}.json`)).status).toBe(204);
    expect((await call(admin.authentication_token, 'GET', '/admins')).status).toBe(401);
    expect(gw.context.admins.get(admin.id)).toBeNull();
    expect(await asRoot('DELETE', `/admins/${admin.id}`)).toMatchObject({ status: 404, body: { error: 'Not Found' } });
  });
});

describe('the last superuser', () => {
  it('can be neither demoted, disabled nor deleted, until there is another', async () => {
    const groupId = agencyGroup('Group for the demoted', ['analytics']);
    expect(errorsOf(await asRoot('PUT', `/admins/${rootId}`, { admin: { superuser: false, group_ids: [groupId] } }))).toEqual({ superuser: [LAST_SUPERUSER] });
    // Told with the other errors: demoted into no group, both.
    expect(errorsOf(await asRoot('PUT', `/admins/${rootId}`, { admin: { superuser: false } }))).toEqual({ superuser: [LAST_SUPERUSER], groups: [GROUPS_NEEDED] });
    expect(errorsOf(await asRoot('PUT', `/admins/${rootId}`, { admin: { enabled: false } }))).toEqual({ superuser: [LAST_SUPERUSER] });
    const deleted = await asRoot('DELETE', `/admins/${rootId}`);
    expect(errorsOf(deleted)).toEqual({ base: [LAST_SUPERUSER] });
    // A sentence already: the full message is the message.
    expect(deleted.body.errors[0].full_message).toBe(LAST_SUPERUSER);
    expect(gw.context.admins.get(rootId)).toMatchObject({ superuser: true, enabled: true });

    // A superuser that is disabled does not count.
    const disabled = await createAdmin({ email: 'disabled-root@example.com', superuser: true, enabled: false });
    expect((await asRoot('DELETE', `/admins/${rootId}`)).status).toBe(422);
    expect((await asRoot('PUT', `/admins/${disabled.id}`, { admin: { enabled: true } })).status).toBe(200);
    expect((await asRoot('PUT', `/admins/${rootId}`, { admin: { superuser: false, group_ids: [groupId] } })).status).toBe(200);
  });
});

describe('admins who are not superusers', () => {
  it('may not add, change or delete admins, refused before the body is read', async () => {
    const viewer = await createScopedAdmin(gw.context, { email: 'viewer@example.com', scopes: [AGENCY_A], permissions: ['admin_view'] });
    const attempts: [string, string][] = [
      ['POST', '/admins'],
      ['POST', '/admins.json'],
      ['PUT', `/admins/${viewer.admin.id}`],
      ['DELETE', `/admins/${rootId}`],
    ];
    for (const [method, path] of attempts) {
      expectForbidden(await call(viewer.authToken, method, path, { admin: { email: 'sneaky@example.com', password: PASSWORD, superuser: true } }));
      // Malformed JSON gets the same 403, not a 400 that would tell the route reads it.
      expectForbidden(await call(viewer.authToken, method, path, '{"admin":'));
    }
    expect(gw.context.admins.findByEmail('sneaky@example.com')).toBeNull();
    expect(gw.context.admins.get(viewer.admin.id)).toMatchObject({ superuser: false });
    expect(gw.context.admins.get(rootId)).not.toBeNull();
    expect(await gw.context.admins.authenticate('viewer@example.com', SCOPED_PASSWORD, '127.0.0.1')).not.toBeNull();
  });
});
