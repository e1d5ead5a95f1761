// Admin groups in the admin API's backends and publishing: an admin who is
// not a superuser sees and changes only the backends within their reach, and
// publishes only changes within it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callAdminApi, EMPTY_LIST, superuserToken, type AdminApiAnswer } from '../helpers/admin-api.js';
import { startInjectedApp, type InjectedApp } from '../helpers/app.js';
import { createScopedAdmin } from '../helpers/scoped-admin.js';
import { BAR_ROLE, FOO_AREA, HOST, backendConfig, draftBackend, seedPendingChanges, seedTwoTeams, type TwoTeams } from '../helpers/scoped-backends.js';

let running: InjectedApp;
let teams: TwoTeams;
let rootToken: string;

beforeEach(async () => {
  running = await startInjectedApp();
  teams = await seedTwoTeams(running.context);
  rootToken = await superuserToken(running.context);
});
afterEach(() => running.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const asFoo = (method: Method, path: string, body?: unknown) => callAdminApi(running.app, teams.fooAdmin.authToken, method, path, body);
const asRoot = (method: Method, path: string, body?: unknown) => callAdminApi(running.app, rootToken, method, path, body);

function expectForbidden(answer: AdminApiAnswer, mentioning = FOO_AREA): void {
  expect(answer.status).toBe(403);
  expect(answer.body.errors).toHaveLength(1);
  expect(answer.body.errors[0].code).toBe('FORBIDDEN');
  expect(answer.body.errors[0].message).toContain(mentioning);
}

const namesOf = (items: readonly { name: string }[]) => items.map((item) => item.name).sort();

describe('API backends for an admin of one team', () => {
  it('lists only the backends within reach, counted alone, and searches only them', async () => {
    const listed = await asFoo('GET', '/apis');
    expect(listed.status).toBe(200);
    expect(namesOf(listed.body.data)).toEqual(['Foo API']);
    expect(listed.body.recordsTotal).toBe(1);
    expect((await asFoo('GET', '/apis.json?search=bar')).body.data).toEqual([]);
    // A superuser still sees every backend.
    expect(namesOf((await asRoot('GET', '/apis')).body.data)).toEqual(['Bar API', 'Foo API', 'Half API', 'Other Host API']);
  });

  it('reads, updates and deletes its own backend', async () => {
    expect((await asFoo('GET', `/apis/${teams.foo.id}`)).body.api.name).toBe('Foo API');
    expect((await asFoo('PUT', `/apis/${teams.foo.id}`, { api: { name: 'Foo API v2', url_matches: [{ frontend_prefix: '/foo/v2/', backend_prefix: '/' }] } })).status).toBe(204);
    expect(running.context.backends.get(teams.foo.id)!.name).toBe('Foo API v2');
    expect((await asFoo('DELETE', `/apis/${teams.foo.id}`)).status).toBe(204);
    expect(running.context.backends.get(teams.foo.id)).toBeNull();
  });

  it('may not read, update or delete a backend out of reach: another team\'s, one half in scope, or one on another host', async () => {
    for (const backend of [teams.bar, teams.half, teams.otherHost]) {
      expectForbidden(await asFoo('GET', `/apis/${backend.id}`));
      expectForbidden(await asFoo('GET', `/apis/${backend.id}.json`));
      // Even a change that would put it wholly in the admin's scope.
      expectForbidden(await asFoo('PUT', `/apis/${backend.id}`, { api: { name: 'Mine now', frontend_host: HOST, url_matches: [{ frontend_prefix: '/foo/taken/', backend_prefix: '/' }] } }));
      expectForbidden(await asFoo('DELETE', `/apis/${backend.id}`));
      expect(running.context.backends.get(backend.id)).toEqual(backend);
    }
    expect((await asFoo('GET', '/apis/no-such-backend')).status).toBe(404);
  });

  it('may not move its own backend out of scope, wholly or by one URL match, nor to another host', async () => {
    for (const change of [
      { url_matches: [{ frontend_prefix: '/elsewhere/', backend_prefix: '/' }] },
      { url_matches: [{ frontend_prefix: '/foo/', backend_prefix: '/' }, { frontend_prefix: '/bar/more/', backend_prefix: '/' }] },
      { frontend_host: 'other.example.com' },
    ]) {
      expectForbidden(await asFoo('PUT', `/apis/${teams.foo.id}`, { api: change }));
    }
    expect(running.context.backends.get(teams.foo.id)).toEqual(teams.foo);
  });

  it('creates a backend only within reach, after validating it (422 first), and creates nothing when refused', async () => {
    const invalid = await asFoo('POST', '/apis', { api: { ...backendConfig('', ['/bar/new/']) } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.name).toBeDefined();
    expectForbidden(await asFoo('POST', '/apis', { api: backendConfig('Bar too', ['/bar/new/']) }));
    expectForbidden(await asFoo('POST', '/apis', { api: backendConfig('Half too', ['/foo/new/', '/bar/new/']) }));
    expect(running.context.backends.list()).toHaveLength(4);
    const created = await asFoo('POST', '/apis', { api: backendConfig('Foo two', ['/foo/two/']) });
    expect(created.status).toBe(201);
    expect(created.body.api.url_matches[0].frontend_prefix).toBe('/foo/two/');
  });

  it("may not give its backend a role another team's backend requires, in settings or a sub-setting, nor take one away", async () => {
    const refusedRole = (answer: AdminApiAnswer) => expectForbidden(answer, `"${BAR_ROLE}"`);
    refusedRole(await asFoo('PUT', `/apis/${teams.foo.id}`, { api: { settings: { required_roles: [BAR_ROLE] } } }));
    const subSetting = { http_method: 'any', regex: '^/private', settings: { required_roles: [BAR_ROLE] } };
    refusedRole(await asFoo('PUT', `/apis/${teams.foo.id}`, { api: { sub_settings: [subSetting] } }));
    refusedRole(await asFoo('POST', '/apis', { api: backendConfig('Foo with bar role', ['/foo/roles/'], [BAR_ROLE]) }));
    expect(running.context.backends.get(teams.foo.id)).toEqual(teams.foo);

    // Its own roles are its to give and take; one a superuser gave it that another team needs stays.
    expect((await asFoo('PUT', `/apis/${teams.foo.id}`, { api: { settings: { required_roles: ['foo-reader'] } } })).status).toBe(204);
    expect((await asFoo('PUT', `/apis/${teams.foo.id}`, { api: { settings: { required_roles: [] } } })).status).toBe(204);
    const shared = draftBackend(running.context, 'Foo shared', ['/foo/shared/'], [BAR_ROLE]);
    refusedRole(await asFoo('PUT', `/apis/${shared.id}`, { api: { settings: { required_roles: [] } } }));
    expect(running.context.backends.get(shared.id)!.settings.required_roles).toEqual([BAR_ROLE]);
  });

  it('answers an admin without backend_manage an empty list, as API Umbrella does, and refuses every other backend route', async () => {
    const { authToken } = await createScopedAdmin(running.context, { email: 'analyst@example.com', scopes: [{ host: HOST, path_prefix: '/foo' }], permissions: ['analytics', 'backend_publish'] });
    const asAnalyst = (method: Method, path: string, body?: unknown) => callAdminApi(running.app, authToken, method, path, body);
    expect(await asAnalyst('GET', '/apis')).toEqual({ status: 200, body: EMPTY_LIST });
    expectForbidden(await asAnalyst('GET', `/apis/${teams.foo.id}`));
    expectForbidden(await asAnalyst('POST', '/apis', { api: backendConfig('Foo two', ['/foo/two/']) }));
    expect(running.context.backends.list()).toHaveLength(4);
  });
});

describe('publishing for an admin of one team', () => {
  const selection = (...ids: string[]) => ({ config: { apis: Object.fromEntries(ids.map((id) => [id, { publish: '1' }])) } });

  it('lists only the pending changes within reach: a new backend by its draft, a deleted one by its live copy, a modified one by both', async () => {
    seedPendingChanges(running.context, teams);
    const answer = await asFoo('GET', '/config/pending_changes');
    expect(answer.status).toBe(200);
    const { apis } = answer.body.config;
    expect(namesOf(apis.new)).toEqual(['Foo fresh']);
    expect(namesOf(apis.modified)).toEqual(['Foo API']);
    expect(namesOf(apis.deleted)).toEqual(['Foo gone']);
    const all = (await asRoot('GET', '/config/pending_changes.json')).body.config.apis;
    expect(namesOf(all.new)).toEqual(['Foo fresh', 'Half API', 'Other Host API']);
    expect(namesOf(all.modified)).toEqual(['Foo API', 'Foo moved']);
    expect(namesOf(all.deleted)).toEqual(['Bar API', 'Foo gone']);
  });

  it('publishes nothing when the selection names a change out of reach, and its own changes otherwise', async () => {
    const { gone, moved, fresh } = seedPendingChanges(running.context, teams);
    const { publisher } = running.context;
    const live = publisher.current;
    for (const outOfReach of [teams.bar.id, moved.id, teams.half.id, 'no-such-backend']) {
      expectForbidden(await asFoo('POST', '/config/publish', selection(fresh.id, outOfReach)));
      expect(publisher.current).toBe(live);
    }
    const published = await asFoo('POST', '/config/publish', selection(fresh.id, gone.id, teams.foo.id));
    expect(published.status).toBe(201);
    expect(namesOf(publisher.current.apis)).toEqual(['Bar API', 'Foo API', 'Foo fresh', 'Foo moved']);
    // The live config answered beside the version holds only the backends within reach.
    expect(namesOf(published.body.config.apis)).toEqual(['Foo API', 'Foo fresh', 'Foo moved']);
  });

  it('leaves the versions and rollback, which replace every backend, to superusers', async () => {
    const { publisher } = running.context;
    publisher.publish([teams.foo.id], 'root@example.com');
    publisher.publish([teams.bar.id], 'root@example.com');
    expectForbidden(await asFoo('GET', '/config/versions'));
    expectForbidden(await asFoo('POST', '/config/rollback', { version_id: 1 }));
    expect(publisher.current.version).toBe(2);
    expect((await asRoot('GET', '/config/versions')).body.versions).toHaveLength(2);
  });

  it('refuses pending changes and publishing to an admin without backend_publish', async () => {
    const { authToken } = await createScopedAdmin(running.context, { email: 'editor@example.com', scopes: [{ host: HOST, path_prefix: '/foo' }], permissions: ['backend_manage'] });
    expectForbidden(await callAdminApi(running.app, authToken, 'GET', '/config/pending_changes'));
    expectForbidden(await callAdminApi(running.app, authToken, 'POST', '/config/publish', selection(teams.foo.id)));
    expect(running.context.publisher.current.version).toBeNull();
  });
});
