// /api-umbrella/v1/admins over a real socket: admin accounts for scripts, as
// the web admin's Admin Accounts shows and changes them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LastSuperuserError } from '../../src/admins/repository.js';
import { startTestGateway, type AdminApiReply, type TestGateway } from '../helpers/gateway.js';
import { createScopedAdmin, SCOPED_PASSWORD } from '../helpers/scoped-admin.js';

const PASSWORD = 'a long enough passphrase';
const LAST_SUPERUSER = new LastSuperuserError().message;
const ADMIN_FIELDS = ['auth_token_preview', 'created_at', 'email', 'enabled', 'group_ids', 'id', 'last_sign_in_at', 'superuser', 'updated_at'];
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

async function createAdmin(fields: Record<string, unknown>): Promise<Record<string, any>> {
  const created = await asRoot('POST', '/admins', { admin: { password: PASSWORD, ...fields } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.admin;
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
    expect(shown).toMatchObject({ email: 'listed@example.com', superuser: false, enabled: true, group_ids: [groupId], last_sign_in_at: null });
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
    await createAdmin({ email: 'in-no-group@example.com' });

    const list = await call(viewer.authToken, 'GET', '/admins');
    expect(list.status).toBe(200);
    expect(emailsOf(list.body.data)).toEqual(['both@example.com', 'same-scope@example.com', 'viewer@example.com']);
    expect(list.body.recordsTotal).toBe(3);
    const byEmail = (email: string) => list.body.data.find((admin: { email: string }) => admin.email === email);
    expect(byEmail('both@example.com').group_ids).toEqual([both.groupId]);
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

  it('refuses admins without admin_view', async () => {
    const analyst = await createScopedAdmin(gw.context, { email: 'analyst@example.com', scopes: [AGENCY_A], permissions: ['analytics', 'user_manage'] });
    const { admin: plain, authToken: plainToken } = (await gw.context.admins.create({ email: 'plain@example.com', password: PASSWORD, superuser: false }))!;
    for (const token of [analyst.authToken, plainToken]) {
      expectForbidden(await call(token, 'GET', '/admins'));
      expectForbidden(await call(token, 'GET', `/admins/${plain.id}`));
    }
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
    expect(admin).toMatchObject({ email: 'New@Example.com', superuser: false, enabled: true, group_ids: [viewers] });
    expect(admin.auth_token_preview).toBe(`${admin.authentication_token.slice(0, 6)}...`);
    expect((await call(admin.authentication_token, 'GET', '/users')).status).toBe(200);
    expectForbidden(await call(admin.authentication_token, 'GET', '/apis'));
    expect(await gw.context.admins.authenticate('New@Example.com', PASSWORD)).toMatchObject({ id: admin.id });
  });

  it('adds an admin in no group, who may do nothing, and a superuser, who may do everything', async () => {
    const nobody = await createAdmin({ email: 'nobody@example.com' });
    expect(nobody.group_ids).toEqual([]);
    expectForbidden(await call(nobody.authentication_token, 'GET', '/users'));
    const superuser = await createAdmin({ email: 'second-root@example.com', superuser: true });
    expect(superuser.superuser).toBe(true);
    expect((await call(superuser.authentication_token, 'GET', '/api_scopes')).status).toBe(200);
  });

  it('adds a disabled admin, whose token and password do not work', async () => {
    const disabled = await createAdmin({ email: 'disabled@example.com', enabled: false });
    expect(disabled.enabled).toBe(false);
    expect((await call(disabled.authentication_token, 'GET', '/admins')).status).toBe(401);
    expect(await gw.context.admins.authenticate('disabled@example.com', PASSWORD)).toBeNull();
  });

  it('takes a bare object and form fields, the groups as a list', async () => {
    const groupId = agencyGroup('Form group', ['analytics']);
    const bare = await asRoot('POST', '/admins', { email: 'bare@example.com', password: PASSWORD });
    expect(bare.status).toBe(201);
    const form = new URLSearchParams({ 'admin[email]': 'form@example.com', 'admin[password]': PASSWORD, 'admin[superuser]': '0', 'admin[group_ids][]': groupId });
    const fromForm = await call(gw.adminToken, 'POST', '/admins', form.toString(), 'application/x-www-form-urlencoded');
    expect(fromForm.status).toBe(201);
    expect(fromForm.body.admin).toMatchObject({ email: 'form@example.com', superuser: false, group_ids: [groupId] });
  });

  it('answers 422 for what the web form refuses, and adds nobody', async () => {
    const refused = async (fields: Record<string, unknown>) => {
      const answer = await asRoot('POST', '/admins', { admin: fields });
      expect(answer.status).toBe(422);
      return answer.body;
    };
    expect(await refused({})).toEqual({ errors: { email: ["can't be blank"], password: ['is too short (minimum is 14 characters)'] } });
    expect(await refused({ email: 'not-an-email', password: 'x'.repeat(73) })).toEqual({ errors: { email: ['is invalid'], password: ['is too long (maximum is 72 characters)'] } });
    // A confirmation, when sent, must match (createAdmin sends none: then it is not asked for).
    expect(await refused({ email: 'typo@example.com', password: PASSWORD, password_confirmation: `${PASSWORD}!` })).toEqual({ errors: { password_confirmation: ["doesn't match Password"] } });
    expect(await refused({ email: 'number@example.com', password: PASSWORD, password_confirmation: 12345 })).toEqual({ errors: { password_confirmation: ["doesn't match Password"] } });
    expect(await refused({ email: 'flags@example.com', password: PASSWORD, superuser: 'maybe', enabled: null })).toEqual({
      errors: { superuser: ['must be true or false'], enabled: ['must be true or false'] },
    });
    expect(gw.context.admins.list()).toHaveLength(1);
  });

  it('refuses an email already taken, in any case, and groups that are not there', async () => {
    await createAdmin({ email: 'taken@example.com' });
    expect((await asRoot('POST', '/admins', { admin: { email: 'TAKEN@example.com', password: PASSWORD } })).body).toEqual({ errors: { email: ['has already been taken'] } });
    const groupId = agencyGroup('Real group', ['analytics']);
    const unknown = await asRoot('POST', '/admins', { admin: { email: 'grouped@example.com', password: PASSWORD, group_ids: [groupId, 'no-such-group'] } });
    expect(unknown).toMatchObject({ status: 422, body: { errors: { group_ids: ['contains "no-such-group", which is no admin group'] } } });
    expect(gw.context.admins.findByEmail('grouped@example.com')).toBeNull();
  });
});

describe('changing admins', () => {
  it('changes the email, flags and groups it names and keeps the others', async () => {
    const viewers = agencyGroup('Viewers', ['user_view']);
    const analysts = agencyGroup('Analysts', ['analytics']);
    const admin = await createAdmin({ email: 'changing@example.com', group_ids: [viewers] });
    expect((await asRoot('PUT', `/admins/${admin.id}`, { admin: { email: 'changed@example.com', group_ids: [analysts] } })).status).toBe(204);
    expect((await asRoot('GET', `/admins/${admin.id}`)).body.admin).toMatchObject({ email: 'changed@example.com', superuser: false, enabled: true, group_ids: [analysts] });
    // The groups apply from the next request.
    expectForbidden(await call(admin.authentication_token, 'GET', '/users'));

    expect((await asRoot('PUT', `/admins/${admin.id}.json`, { superuser: true })).status).toBe(204);
    expect((await call(admin.authentication_token, 'GET', '/users')).status).toBe(200);
    expect((await asRoot('PUT', `/admins/${admin.id}`, { admin: { superuser: false, enabled: false } })).status).toBe(204);
    expect((await call(admin.authentication_token, 'GET', '/users')).status).toBe(401);
    expect((await asRoot('GET', `/admins/${admin.id}`)).body.admin).toMatchObject({ email: 'changed@example.com', superuser: false, enabled: false, group_ids: [analysts] });

    expect((await asRoot('PUT', `/admins/${admin.id}`, { admin: { group_ids: [] } })).status).toBe(204);
    expect(gw.context.adminGroups.groupIdsOf(admin.id)).toEqual([]);
  });

  it('refuses a password, a taken email, unknown groups and unclear flags, changing nothing', async () => {
    const groupId = agencyGroup('Kept group', ['analytics']);
    const admin = await createAdmin({ email: 'kept@example.com', group_ids: [groupId] });
    await createAdmin({ email: 'other@example.com' });
    const refused = (body: unknown) => asRoot('PUT', `/admins/${admin.id}`, { admin: body });
    const password = await refused({ password: 'another long passphrase' });
    expect(password.status).toBe(422);
    expect(password.body.errors.password[0]).toMatch(/My Account.*parasol admins reset-password/);
    expect((await refused({ email: 'other@example.com' })).body).toEqual({ errors: { email: ['has already been taken'] } });
    expect((await refused({ email: '' })).body).toEqual({ errors: { email: ["can't be blank"] } });
    expect((await refused({ group_ids: ['no-such-group'] })).body).toEqual({ errors: { group_ids: ['contains "no-such-group", which is no admin group'] } });
    expect((await refused({ enabled: 'perhaps' })).body).toEqual({ errors: { enabled: ['must be true or false'] } });
    // Groups in a shape that is no list are refused, not read as "no groups" (which would take them all away).
    for (const groups of [[{ id: groupId }], [123], null, 5, true, { x: groupId }]) {
      expect((await refused({ group_ids: groups })).body, JSON.stringify(groups)).toEqual({ errors: { group_ids: ['must be a list of admin group ids'] } });
    }
    const { authentication_token: _token, ...unchanged } = admin;
    expect((await asRoot('GET', `/admins/${admin.id}`)).body.admin).toEqual(unchanged);
    expect(await gw.context.admins.authenticate('kept@example.com', PASSWORD)).not.toBeNull();
  });

  it('answers 404 for an unknown admin', async () => {
    expect(await asRoot('PUT', '/admins/no-such-admin', { admin: { enabled: true } })).toMatchObject({ status: 404, body: { error: 'Not Found' } });
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
    expect(await asRoot('PUT', `/admins/${rootId}`, { admin: { superuser: false } })).toMatchObject({ status: 422, body: { errors: { superuser: [LAST_SUPERUSER] } } });
    expect(await asRoot('PUT', `/admins/${rootId}`, { admin: { enabled: false } })).toMatchObject({ status: 422, body: { errors: { superuser: [LAST_SUPERUSER] } } });
    expect(await asRoot('DELETE', `/admins/${rootId}`)).toMatchObject({ status: 422, body: { errors: { base: [LAST_SUPERUSER] } } });
    expect(gw.context.admins.get(rootId)).toMatchObject({ superuser: true, enabled: true });

    // A superuser that is disabled does not count.
    const disabled = await createAdmin({ email: 'disabled-root@example.com', superuser: true, enabled: false });
    expect((await asRoot('DELETE', `/admins/${rootId}`)).status).toBe(422);
    expect((await asRoot('PUT', `/admins/${disabled.id}`, { admin: { enabled: true } })).status).toBe(204);
    expect((await asRoot('PUT', `/admins/${rootId}`, { admin: { superuser: false } })).status).toBe(204);
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
    expect(await gw.context.admins.authenticate('viewer@example.com', SCOPED_PASSWORD)).not.toBeNull();
  });
});
