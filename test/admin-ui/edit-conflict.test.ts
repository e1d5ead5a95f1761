// An edit form posts every field as the page showed it. Saved after another
// admin changed the record, it undid that change unseen: a key disabled and
// its role taken away through the admin API worked again, with the role,
// after a colleague fixed a typo in a tab opened before (probe-concurrency,
// MEDIUM 1). The form carries the version it was filled from; a save from an
// older version saves nothing and says what now differs, keeping what was
// typed, and the form it shows saves over the change when posted again.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiUserInput } from '../helpers/users.js';
import { callAdminApi, superuserToken } from '../helpers/admin-api.js';
import { createAdmin, startSignedIn, textOf, type AdminApp, type AdminClient } from './helpers/admin-client.js';
import { draftParsed } from './helpers/backends.js';
import { formFieldsOf } from './helpers/form-fields.js';

let running: AdminApp;
let client: AdminClient;
/** The other admin's admin API token: root@example.com, a superuser. */
let other: string;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
  other = await superuserToken(running.context);
});
afterEach(() => running.close());

/** The page's form as the browser posts it untouched (one value a name: these forms tick no two boxes of one name). */
function formOf(html: string, action: string): Record<string, string> {
  return Object.fromEntries(formFieldsOf(html, action));
}

async function openForm(page: string, action: string): Promise<Record<string, string>> {
  const response = await client.get(page);
  expect(response.statusCode).toBe(200);
  return formOf(response.body, action);
}

describe("an API user's form saved after another admin changed the user", () => {
  it('saves nothing and names what differs; the form shown, with the new version, saves over it', async () => {
    const { user } = running.context.users.create(apiUserInput({ email: 'abuse@example.com', first_name: 'Fixd', roles: ['partner'] }), 'test');
    const action = `/admin/api_users/${user.id}`;
    const opened = await openForm(action, action);
    expect(opened.record_version).toMatch(/^\d+$/);

    // An abusive key: disabled, its role taken away.
    expect((await callAdminApi(running.app, other, 'PUT', `/users/${user.id}`, { user: { enabled: false, roles: [] } })).status).toBe(200);
    const refused = await client.post(action, { ...opened, first_name: 'Fixed' });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toMatch(
      /root@example\.com changed this API user at \d{4}-\d\d-\d\d \d\d:\d\d UTC after you opened this page, and nothing was saved\. The saved API user now differs from your form in: First Name, Roles, Enabled\. Check those fields, then save again to keep your values\./,
    );
    const kept = running.context.users.get(user.id)!;
    expect([kept.enabled, kept.roles, kept.first_name]).toEqual([false, [], 'Fixd']);

    const shown = formOf(refused.body, action);
    expect([shown.first_name, shown.roles, shown.enabled]).toEqual(['Fixed', 'partner', '1']);
    expect(shown.record_version).not.toBe(opened.record_version);
    // Saved again, deliberately: the admin's values win.
    expect((await client.post(action, shown)).statusCode).toBe(303);
    const saved = running.context.users.get(user.id)!;
    expect([saved.enabled, saved.roles, saved.first_name]).toEqual([true, ['partner'], 'Fixed']);
  });

  it('is refused even when the form is invalid too, and 404 once the user is deleted', async () => {
    const { user } = running.context.users.create(apiUserInput({ email: 'invalid@example.com' }), 'test');
    const action = `/admin/api_users/${user.id}`;
    const opened = await openForm(action, action);
    expect((await callAdminApi(running.app, other, 'PUT', `/users/${user.id}`, { user: { enabled: false } })).status).toBe(200);
    const refused = await client.post(action, { ...opened, email: 'not an email' });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toContain('differs from your form in: Email, Enabled.');
    expect(running.context.users.get(user.id)!.email).toBe('invalid@example.com');
    running.context.users.delete(user.id, null);
    expect((await client.post(action, formOf(refused.body, action))).statusCode).toBe(404);
  });

  it('saves as before when posted without a version (an older page, a script)', async () => {
    const { user } = running.context.users.create(apiUserInput({ email: 'script@example.com' }), 'test');
    const action = `/admin/api_users/${user.id}`;
    const { record_version: _version, ...opened } = await openForm(action, action);
    expect((await callAdminApi(running.app, other, 'PUT', `/users/${user.id}`, { user: { enabled: false } })).status).toBe(200);
    expect((await client.post(action, { ...opened, first_name: 'Scripted' })).statusCode).toBe(303);
    expect(running.context.users.get(user.id)!.first_name).toBe('Scripted');
  });

  it('still saves a form opened after the change', async () => {
    const { user } = running.context.users.create(apiUserInput({ email: 'fresh@example.com' }), 'test');
    const action = `/admin/api_users/${user.id}`;
    expect((await callAdminApi(running.app, other, 'PUT', `/users/${user.id}`, { user: { enabled: false } })).status).toBe(200);
    const opened = await openForm(action, action);
    expect((await client.post(action, { ...opened, first_name: 'Later' })).statusCode).toBe(303);
    const saved = running.context.users.get(user.id)!;
    expect([saved.first_name, saved.enabled]).toEqual(['Later', false]);
  });
});

describe("an admin account's form saved after another admin changed the account", () => {
  it('saves nothing and names what differs; the form shown saves over it', async () => {
    const target = await createAdmin(running.context, 'ex@example.com');
    const action = `/admin/admins/${target.id}`;
    const opened = await openForm(`${action}/edit`, action);
    expect(opened.record_version).toBe(target.updated_at);

    expect((await callAdminApi(running.app, other, 'PUT', `/admins/${target.id}`, { admin: { enabled: false } })).status).toBe(200);
    const refused = await client.post(action, { ...opened, notes: 'noted' });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toMatch(
      /Another admin changed this admin at \d{4}-\d\d-\d\d \d\d:\d\d UTC after you opened this page, and nothing was saved\. The saved admin now differs from your form in: Notes, Enabled\./,
    );
    const kept = running.context.admins.get(target.id)!;
    expect([kept.enabled, kept.notes]).toEqual([false, null]);

    const shown = formOf(refused.body, action);
    expect([shown.notes, shown.enabled]).toEqual(['noted', '1']);
    expect(shown.record_version).toBe(kept.updated_at);
    expect((await client.post(action, shown)).statusCode).toBe(303);
    const saved = running.context.admins.get(target.id)!;
    expect([saved.enabled, saved.notes]).toEqual([true, 'noted']);
  });

  it('saves as before when posted without a version', async () => {
    const target = await createAdmin(running.context, 'older@example.com');
    const action = `/admin/admins/${target.id}`;
    const { record_version: _version, ...opened } = await openForm(`${action}/edit`, action);
    expect((await callAdminApi(running.app, other, 'PUT', `/admins/${target.id}`, { admin: { enabled: false } })).status).toBe(200);
    expect((await client.post(action, { ...opened, notes: 'noted' })).statusCode).toBe(303);
    expect(running.context.admins.get(target.id)!.notes).toBe('noted');
  });
});

describe("an API backend's form saved after another admin changed the backend", () => {
  function backend() {
    return draftParsed(running.context, { name: 'Web1', servers: [{ host: '127.0.0.1', port: 47851 }], url_matches: [{ frontend_prefix: '/web1/', backend_prefix: '/' }] });
  }

  it('saves nothing and names what differs; the form shown saves over it', async () => {
    const api = backend();
    const action = `/admin/apis/${api.id}`;
    const opened = await openForm(`${action}/edit`, action);
    expect(opened.record_version).toBe(api.updated_at);

    const change = { api: { servers: [{ host: '127.0.0.1', port: 47852 }], settings: { append_query_string: 'by=api' } } };
    expect((await callAdminApi(running.app, other, 'PUT', `/apis/${api.id}`, change)).status).toBe(204);
    const refused = await client.post(action, { ...opened, 'url_matches[0][frontend_prefix]': '/web/' });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toMatch(
      /root@example\.com changed this API backend at \d{4}-\d\d-\d\d \d\d:\d\d UTC after you opened this page, and nothing was saved\. The saved API backend now differs from your form in: Servers, Matching URL Prefixes, Global Request Settings › Append Query String Parameters\./,
    );
    const kept = running.context.backends.get(api.id)!;
    expect([kept.servers[0]!.port, kept.settings.append_query_string, kept.url_matches[0]!.frontend_prefix]).toEqual([47852, 'by=api', '/web1/']);

    const shown = formOf(refused.body, action);
    expect([shown['url_matches[0][frontend_prefix]'], shown['servers[0][port]']]).toEqual(['/web/', '47851']);
    expect(shown.record_version).toBe(kept.updated_at);
    expect((await client.post(action, shown)).statusCode).toBe(303);
    const saved = running.context.backends.get(api.id)!;
    expect([saved.servers[0]!.port, saved.settings.append_query_string, saved.url_matches[0]!.frontend_prefix]).toEqual([47851, null, '/web/']);
  });

  it('keeps the version it was opened with through an added row', async () => {
    const api = backend();
    const action = `/admin/apis/${api.id}`;
    const opened = await openForm(`${action}/edit`, action);
    expect((await callAdminApi(running.app, other, 'PUT', `/apis/${api.id}`, { api: { servers: [{ host: '127.0.0.1', port: 47852 }] } })).status).toBe(204);
    const added = await client.post(action, { ...opened, _add: 'servers' });
    expect(added.statusCode).toBe(200);
    const withRow = formOf(added.body, action);
    expect(withRow.record_version).toBe(api.updated_at);
    expect((await client.post(action, withRow)).statusCode).toBe(409);
    expect(running.context.backends.get(api.id)!.servers[0]!.port).toBe(47852);
  });

  it('saves as before when posted without a version', async () => {
    const api = backend();
    const action = `/admin/apis/${api.id}`;
    const { record_version: _version, ...opened } = await openForm(`${action}/edit`, action);
    expect((await callAdminApi(running.app, other, 'PUT', `/apis/${api.id}`, { api: { servers: [{ host: '127.0.0.1', port: 47852 }] } })).status).toBe(204);
    expect((await client.post(action, opened)).statusCode).toBe(303);
    expect(running.context.backends.get(api.id)!.servers[0]!.port).toBe(47851);
  });
});

describe("an API scope's form saved after another admin changed the scope", () => {
  it('saves nothing and names what differs; the form shown saves over it', async () => {
    const scope = running.context.adminGroups.createScope({ name: 'Weather', host: 'api.example.com', path_prefix: '/weather/' });
    if (!scope.ok) throw new Error(JSON.stringify(scope.errors));
    const action = `/admin/api_scopes/${scope.value.id}`;
    const opened = await openForm(`${action}/edit`, action);
    const change = { api_scope: { name: 'Weather', host: 'api.example.com', path_prefix: '/weather/v2/' } };
    expect((await callAdminApi(running.app, other, 'PUT', `/api_scopes/${scope.value.id}`, change)).status).toBe(204);
    const refused = await client.post(action, { ...opened, name: 'Weather team' });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toContain('The saved API scope now differs from your form in: Name, Path Prefix.');
    expect(running.context.adminGroups.getScope(scope.value.id)!.path_prefix).toBe('/weather/v2/');
    expect((await client.post(action, formOf(refused.body, action))).statusCode).toBe(303);
    expect(running.context.adminGroups.getScope(scope.value.id)).toMatchObject({ name: 'Weather team', path_prefix: '/weather/' });
  });
});

describe("an admin group's form saved after another admin changed the group", () => {
  it('saves nothing and names what differs, its ticked boxes compared as sets; the form shown saves over it', async () => {
    const scope = running.context.adminGroups.createScope({ name: 'Weather', host: 'api.example.com', path_prefix: '/weather/' });
    if (!scope.ok) throw new Error(JSON.stringify(scope.errors));
    // Permissions stored in another order than the page lists its boxes.
    const group = running.context.adminGroups.createGroup({ name: 'Forecasters', api_scope_ids: [scope.value.id], permission_ids: ['user_view', 'analytics'] });
    if (!group.ok) throw new Error(JSON.stringify(group.errors));
    const action = `/admin/admin_groups/${group.value.id}`;
    const opened = formFieldsOf((await client.get(`${action}/edit`)).body, action);
    expect(opened.filter(([name]) => name === 'permission_ids').map(([, value]) => value)).toEqual(['analytics', 'user_view']);

    expect((await callAdminApi(running.app, other, 'PUT', `/admin_groups/${group.value.id}`, { admin_group: { name: 'Forecasting' } })).status).toBe(204);
    const renamed = opened.map(([name, value]): [string, string] => [name, name === 'name' ? 'Weather forecasters' : value]);
    const refused = await client.post(action, boxes(renamed));
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toContain('The saved admin group now differs from your form in: Group Name. Check those fields');
    expect(running.context.adminGroups.getGroup(group.value.id)!.name).toBe('Forecasting');
    expect((await client.post(action, boxes(formFieldsOf(refused.body, action)))).statusCode).toBe(303);
    expect(running.context.adminGroups.getGroup(group.value.id)!.name).toBe('Weather forecasters');
  });

  /** A form's fields as the browser posts them, several boxes of one name each ticked one. */
  function boxes(pairs: [string, string][]): Record<string, string[]> {
    const fields: Record<string, string[]> = {};
    for (const [name, value] of pairs) (fields[name] ??= []).push(value);
    return fields;
  }
});

describe('the check against the version', () => {
  it("is made in the write's transaction: a user changed since is not written, and takes no change number", () => {
    const { users } = running.context;
    const { user } = users.create(apiUserInput({ email: 'stale@example.com' }), 'test');
    const opened = users.versioned(user.id)!;
    users.update(user.id, apiUserInput({ email: 'stale@example.com', enabled: false }), null);
    const seq = users.lastChangeSeq();
    expect(users.update(user.id, apiUserInput({ email: 'stale@example.com', first_name: 'Late' }), null, { version: opened.version })).toBe('conflict');
    expect([users.get(user.id)!.first_name, users.get(user.id)!.enabled, users.lastChangeSeq()]).toEqual(['Test', false, seq]);
    expect(users.update(user.id, apiUserInput({ email: 'stale@example.com', first_name: 'Now' }), null, { version: users.versioned(user.id)!.version })).not.toBe('conflict');
  });

  it('runs no write for an admin, backend or scope changed since, or a group gone', async () => {
    const { admins, backends, adminGroups } = running.context;
    const admin = await createAdmin(running.context, 'checked@example.com');
    const api = draftParsed(running.context, { name: 'Checked', url_matches: [{ frontend_prefix: '/checked/', backend_prefix: '/' }] });
    const scope = adminGroups.createScope({ name: 'Checked', host: 'api.example.com', path_prefix: '/checked/' });
    if (!scope.ok) throw new Error(JSON.stringify(scope.errors));
    const never = () => {
      throw new Error('written');
    };
    expect(admins.ifUnchanged(admin.id, 'an older version', never)).toBe('conflict');
    expect(backends.ifUnchanged(api.id, 'an older version', never)).toBe('conflict');
    expect(adminGroups.ifScopeUnchanged(scope.value.id, 'an older version', never)).toBe('conflict');
    expect(adminGroups.ifGroupUnchanged('no such group', 'an older version', never)).toBe('conflict');
    expect(admins.ifUnchanged(admin.id, admin.updated_at, () => admins.update(admin.id, { notes: 'checked' })?.notes)).toBe('checked');
  });
});
