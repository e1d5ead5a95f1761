// admin_manage in the admin API, over a real socket: a holder manages API
// scopes, admin groups and admin accounts, but only within the scopes where
// their groups grant admin_manage (M), and never grants more than they hold.
// Two teams: the manager's (admin_manage and analytics on /weather/) and
// traffic's (analytics on /traffic/), whose scopes, groups and admins are not
// the manager's business.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PERMISSION_IDS, type ApiScope } from '../../src/admin-groups/model.js';
import { EMPTY_LIST } from '../helpers/admin-api.js';
import { startTestGateway, type AdminApiReply, type TestGateway } from '../helpers/gateway.js';
import { createGroup, createMember, createScope, createScopedAdmin, type ScopedAdmin } from '../helpers/scoped-admin.js';

const HOST = 'api.example.com';
const PASSWORD = 'a long enough passphrase';

let gw: TestGateway;
let weather: ApiScope;
let traffic: ApiScope;
/** admin_manage and analytics on api.example.com/weather/. */
let manager: ScopedAdmin;
/** Another team: analytics on api.example.com/traffic/. */
let trafficTeam: ScopedAdmin;

beforeEach(async () => {
  gw = await startTestGateway();
  weather = createScope(gw.context, 'Weather', HOST, '/weather/');
  traffic = createScope(gw.context, 'Traffic', HOST, '/traffic/');
  manager = await createScopedAdmin(gw.context, { email: 'manager@example.com', scopes: [weather], permissions: ['admin_manage', 'analytics'] });
  trafficTeam = await createScopedAdmin(gw.context, { email: 'traffic@example.com', scopes: [traffic], permissions: ['analytics'] });
});
afterEach(() => gw.stop());

const asManager = (method: string, path: string, body?: unknown) => gw.adminApiAs(manager.authToken, method, path, body);
const asRoot = (method: string, path: string, body?: unknown) => gw.adminApi(method, path, body);

function expectForbidden(answer: AdminApiReply, what = ''): void {
  expect(answer.status, `${what} ${JSON.stringify(answer.body)}`).toBe(403);
  expect(answer.body.errors).toEqual([{ code: 'FORBIDDEN', message: expect.stringContaining('You are not authorized to perform this action.') }]);
}

/** Status and body only: headers (the date) differ between two answers. */
const answerOf = ({ status, body }: AdminApiReply) => ({ status, body });

const namesOf = (items: readonly { name: string }[]) => items.map((item) => item.name).sort();
const emailsOf = (admins: readonly { email: string }[]) => admins.map((admin) => admin.email).sort();

describe('an admin without admin_manage', () => {
  it('reads the API scopes and admin groups within their admin_view scopes, and is refused every change to them and to admins, whatever else they hold', async () => {
    const everythingElse = PERMISSION_IDS.filter((permission) => permission !== 'admin_manage');
    const other = await createScopedAdmin(gw.context, { email: 'all-but-manage@example.com', scopes: [weather], permissions: everythingElse });
    const weatherMember = await createMember(gw.context, 'weather-member@example.com', [manager.groupId]);
    const calls: [string, string, unknown?][] = [
      ['GET', `/api_scopes/${traffic.id}`],
      ['POST', '/api_scopes', { api_scope: { name: 'Radar', host: HOST, path_prefix: '/weather/radar/' } }],
      ['PUT', `/api_scopes/${weather.id}`, { api_scope: { name: 'Taken over' } }],
      ['DELETE', `/api_scopes/${traffic.id}`],
      ['GET', `/admin_groups/${trafficTeam.groupId}`],
      ['POST', '/admin_groups', { admin_group: { name: 'Mine', api_scope_ids: [weather.id], permission_ids: ['analytics'] } }],
      ['PUT', `/admin_groups/${other.groupId}`, { admin_group: { permission_ids: PERMISSION_IDS } }],
      ['DELETE', `/admin_groups/${trafficTeam.groupId}`],
      // admin_view lets them read admins, not change them.
      ['POST', '/admins', { admin: { email: 'sneaky@example.com', password: PASSWORD, group_ids: [manager.groupId] } }],
      ['PUT', `/admins/${weatherMember.id}`, { admin: { email: 'renamed@example.com' } }],
      ['DELETE', `/admins/${weatherMember.id}`],
    ];
    for (const [method, path, body] of calls) expectForbidden(await gw.adminApiAs(other.authToken, method, path, body), `${method} ${path}`);
    // admin_view reads what lies within its scopes, as in API Umbrella.
    expect(namesOf((await gw.adminApiAs(other.authToken, 'GET', '/api_scopes')).body.data)).toEqual(['Weather']);
    expect((await gw.adminApiAs(other.authToken, 'GET', `/api_scopes/${weather.id}`)).status).toBe(200);
    expect(namesOf((await gw.adminApiAs(other.authToken, 'GET', '/admin_groups.json')).body.data)).toEqual(['group of all-but-manage@example.com', 'group of manager@example.com']);
    expect((await gw.adminApiAs(other.authToken, 'GET', `/admin_groups/${other.groupId}`)).status).toBe(200);
    expect((await gw.adminApiAs(other.authToken, 'GET', '/admins')).status).toBe(200);

    expect(gw.context.adminGroups.listScopes()).toHaveLength(2);
    expect(gw.context.adminGroups.getScope(weather.id)!.name).toBe('Weather');
    expect(gw.context.adminGroups.getGroup(other.groupId)!.permission_ids).toEqual(everythingElse);
    expect(gw.context.adminGroups.getGroup(trafficTeam.groupId)).not.toBeNull();
    expect(gw.context.admins.findByEmail('sneaky@example.com')).toBeNull();
    expect(gw.context.admins.get(weatherMember.id)!.email).toBe('weather-member@example.com');
  });
});

describe('API scopes and admin groups for an admin_view holder', () => {
  /** admin_view alone on api.example.com/weather/. */
  let viewer: ScopedAdmin;
  beforeEach(async () => {
    viewer = await createScopedAdmin(gw.context, { email: 'viewer@example.com', scopes: [weather], permissions: ['admin_view'] });
  });
  const asViewer = (method: string, path: string, body?: unknown) => gw.adminApiAs(viewer.authToken, method, path, body);

  it('lists and reads the scopes within their scopes, as the web admin shows them, and not another team\'s', async () => {
    const radar = createScope(gw.context, 'Radar', HOST, '/weather/radar/');
    for (const path of ['/api_scopes', '/api_scopes.json']) {
      const list = await asViewer('GET', path);
      expect(list.status, path).toBe(200);
      expect(namesOf(list.body.data), path).toEqual(['Radar', 'Weather']);
      expect(list.body.recordsTotal, path).toBe(2);
    }
    expect(answerOf(await asViewer('GET', `/api_scopes/${radar.id}.json`))).toEqual({ status: 200, body: { api_scope: radar } });
    const outside = await asViewer('GET', `/api_scopes/${traffic.id}`);
    expectForbidden(outside);
    expect(outside.body.errors[0].message).toContain('- api.example.com/weather/');
    expect(answerOf(await asViewer('GET', '/api_scopes/no-such-scope'))).toEqual({ status: 404, body: { error: 'Not Found' } });
    expectForbidden(await asViewer('PUT', `/api_scopes/${radar.id}`, { api_scope: { name: 'Taken over' } }));
    expectForbidden(await asViewer('DELETE', `/api_scopes/${radar.id}`));
    expect(gw.context.adminGroups.getScope(radar.id)!.name).toBe('Radar');
  });

  it('lists and reads the groups wholly within their scopes, with their admins, and not another team\'s', async () => {
    const mixed = createGroup(gw.context, 'Mixed team', [weather, traffic], ['analytics']);
    const list = await asViewer('GET', '/admin_groups');
    expect(list.status).toBe(200);
    expect(namesOf(list.body.data)).toEqual(['group of manager@example.com', 'group of viewer@example.com']);
    const shown = await asViewer('GET', `/admin_groups/${manager.groupId}.json`);
    expect(shown.status).toBe(200);
    expect(shown.body.admin_group).toMatchObject({ id: manager.groupId, api_scope_ids: [weather.id], admin_usernames: ['manager@example.com'] });
    expect(shown.body.admin_group).toEqual(list.body.data.find((group: { id: string }) => group.id === manager.groupId));
    for (const id of [mixed.id, trafficTeam.groupId]) expectForbidden(await asViewer('GET', `/admin_groups/${id}`), id);
    expectForbidden(await asViewer('PUT', `/admin_groups/${viewer.groupId}`, { admin_group: { permission_ids: ['admin_view', 'admin_manage'] } }));
    expectForbidden(await asViewer('DELETE', `/admin_groups/${manager.groupId}`));
    expect(gw.context.adminGroups.getGroup(viewer.groupId)!.permission_ids).toEqual(['admin_view']);
    expect(gw.context.adminGroups.getGroup(manager.groupId)).not.toBeNull();
  });

  it('with admin_manage too, reads a group on their ground granting what they lack, and may still not change it', async () => {
    gw.context.adminGroups.updateGroup(manager.groupId, { name: 'group of manager@example.com', api_scope_ids: [weather.id], permission_ids: ['admin_view', 'admin_manage', 'analytics'] });
    const publishers = createGroup(gw.context, 'Weather publishers', [weather], ['backend_publish']);
    expect(namesOf((await asManager('GET', '/admin_groups')).body.data)).toContain('Weather publishers');
    expect((await asManager('GET', `/admin_groups/${publishers.id}`)).status).toBe(200);
    expectForbidden(await asManager('PUT', `/admin_groups/${publishers.id}`, { admin_group: { name: 'Renamed' } }));
    expectForbidden(await asManager('DELETE', `/admin_groups/${publishers.id}`));
    expect(gw.context.adminGroups.getGroup(publishers.id)!.name).toBe('Weather publishers');
  });
});

describe('API scopes for an admin_manage holder', () => {
  it('lists and reads only the scopes within their admin_manage scopes, on any port of the host', async () => {
    createScope(gw.context, 'Radar', HOST, '/weather/radar/');
    createScope(gw.context, 'Weather on 8443', `${HOST}:8443`, '/weather/');
    const wider = createScope(gw.context, 'Wider', HOST, '/weath');
    createScope(gw.context, 'Other host', 'www.example.com', '/weather/');
    // Analytics on /traffic/ (another group of theirs) does not make the traffic scope theirs to manage.
    gw.context.adminGroups.setGroupsOf(manager.admin.id, [manager.groupId, trafficTeam.groupId]);

    const list = await asManager('GET', '/api_scopes');
    expect(list.status).toBe(200);
    expect(namesOf(list.body.data)).toEqual(['Radar', 'Weather', 'Weather on 8443']);
    expect(list.body.recordsTotal).toBe(3);
    const radar = list.body.data.find((known: ApiScope) => known.name === 'Radar');
    expect(await asManager('GET', `/api_scopes/${radar.id}`)).toMatchObject({ status: 200, body: { api_scope: radar } });
    expectForbidden(await asManager('GET', `/api_scopes/${traffic.id}`));
    expectForbidden(await asManager('GET', `/api_scopes/${wider.id}.json`));
    // A superuser still sees every scope.
    expect((await asRoot('GET', '/api_scopes')).body.recordsTotal).toBe(6);
  });

  it('creates a scope only within their scopes: 422 for malformed input, 403 outside (before "already taken"), 201 within', async () => {
    const malformed = { api_scope: { name: ' ', host: 'not a host', path_prefix: 'weather' } };
    const invalid = await asManager('POST', '/api_scopes', malformed);
    expect(invalid.status).toBe(422);
    expect(answerOf(invalid)).toEqual(answerOf(await asRoot('POST', '/api_scopes', malformed)));

    for (const outside of [
      { name: 'Traffic more', host: HOST, path_prefix: '/traffic/more/' },
      // "/weather" is wider than "/weather/": it covers /weatherman/ too.
      { name: 'Wider', host: HOST, path_prefix: '/weather' },
      { name: 'Other host', host: 'www.example.com', path_prefix: '/weather/radar/' },
      // Another team's scope: refused, not told that it exists.
      { name: 'Traffic again', host: HOST, path_prefix: '/traffic/' },
    ]) {
      expectForbidden(await asManager('POST', '/api_scopes', { api_scope: outside }), outside.name);
    }
    expect(gw.context.adminGroups.listScopes()).toHaveLength(2);

    const created = await asManager('POST', '/api_scopes', { api_scope: { name: 'Radar', host: 'API.Example.com', path_prefix: '/weather/radar/' } });
    expect(created).toMatchObject({ status: 201, body: { api_scope: { name: 'Radar', host: HOST, path_prefix: '/weather/radar/' } } });
    expect((await asManager('POST', '/api_scopes', { api_scope: { name: 'Radar 8443', host: `${HOST}:8443`, path_prefix: '/weather/radar/' } })).status).toBe(201);
    // Within their scopes, a taken host and prefix is a 422 as for superusers.
    expect(answerOf(await asManager('POST', '/api_scopes', { api_scope: { name: 'Radar again', host: HOST, path_prefix: '/weather/radar/' } }))).toEqual({
      status: 422,
      body: { errors: { path_prefix: ['has already been taken'] } },
    });
  });

  it('updates a scope within their scopes only while it stays within them', async () => {
    const radar = createScope(gw.context, 'Radar', HOST, '/weather/radar/');
    expectForbidden(await asManager('PUT', `/api_scopes/${traffic.id}`, { api_scope: { name: 'Taken over' } }));
    expectForbidden(await asManager('PUT', `/api_scopes/${radar.id}`, { api_scope: { path_prefix: '/traffic/radar/' } }));
    expectForbidden(await asManager('PUT', `/api_scopes/${radar.id}`, { api_scope: { host: 'www.example.com' } }));
    expect(gw.context.adminGroups.getScope(traffic.id)).toEqual(traffic);
    expect(gw.context.adminGroups.getScope(radar.id)).toEqual(radar);

    expect((await asManager('PUT', `/api_scopes/${radar.id}`, { api_scope: { name: 'Radar v2', path_prefix: '/weather/radar/v2/' } })).status).toBe(204);
    expect(gw.context.adminGroups.getScope(radar.id)).toMatchObject({ name: 'Radar v2', host: HOST, path_prefix: '/weather/radar/v2/' });
  });

  it('deletes an unused scope within their scopes, not one outside, and not one a group uses', async () => {
    const unused = createScope(gw.context, 'Unused', HOST, '/weather/unused/');
    const used = createScope(gw.context, 'Used', HOST, '/weather/used/');
    createGroup(gw.context, 'Users of it', [used], ['analytics']);

    expectForbidden(await asManager('DELETE', `/api_scopes/${traffic.id}`));
    expect(gw.context.adminGroups.getScope(traffic.id)).not.toBeNull();
    expect((await asManager('DELETE', `/api_scopes/${unused.id}`)).status).toBe(204);
    expect(gw.context.adminGroups.getScope(unused.id)).toBeNull();
    expect(answerOf(await asManager('DELETE', `/api_scopes/${used.id}`))).toEqual({
      status: 422,
      body: { errors: { base: ['This API scope is used by the admin group "Users of it"; take it out of that group first.'] } },
    });
    expect(gw.context.adminGroups.getScope(used.id)).not.toBeNull();
  });
});

describe('admin groups for an admin_manage holder', () => {
  it('lists and reads only the groups whose every scope lies within their scopes', async () => {
    const radarTeam = createGroup(gw.context, 'Radar team', [createScope(gw.context, 'Radar', HOST, '/weather/radar/')], ['analytics']);
    const mixed = createGroup(gw.context, 'Mixed team', [weather, traffic], ['analytics']);

    const list = await asManager('GET', '/admin_groups');
    expect(list.status).toBe(200);
    expect(namesOf(list.body.data)).toEqual(['Radar team', 'group of manager@example.com']);
    expect(list.body.recordsTotal).toBe(2);
    expect((await asManager('GET', `/admin_groups/${radarTeam.id}`)).body.admin_group).toMatchObject(radarTeam);
    expectForbidden(await asManager('GET', `/admin_groups/${mixed.id}`));
    expectForbidden(await asManager('GET', `/admin_groups/${trafficTeam.groupId}.json`));
    expect((await asRoot('GET', '/admin_groups')).body.recordsTotal).toBe(4);
  });

  it('creates a group only on scopes within their scopes: 422 for malformed input, 403 outside (before "already taken"), 201 within', async () => {
    const radar = createScope(gw.context, 'Radar', HOST, '/weather/radar/');
    const malformed = { admin_group: { name: '' } };
    const invalid = await asManager('POST', '/admin_groups', malformed);
    expect(invalid.status).toBe(422);
    expect(answerOf(invalid)).toEqual(answerOf(await asRoot('POST', '/admin_groups', malformed)));

    const post = (name: string, scopes: readonly ApiScope[]) => asManager('POST', '/admin_groups', { admin_group: { name, api_scope_ids: scopes.map((s) => s.id), permission_ids: ['analytics'] } });
    expectForbidden(await post('Traffic too', [traffic]));
    expectForbidden(await post('Half ours', [weather, traffic]));
    // Another team's group name on their scope: refused, not told the name is taken.
    expectForbidden(await post('group of traffic@example.com', [traffic]));
    expect(gw.context.adminGroups.listGroups()).toHaveLength(2);

    const created = await post('Radar team', [radar]);
    expect(created).toMatchObject({ status: 201, body: { admin_group: { name: 'Radar team', api_scope_ids: [radar.id], permission_ids: ['analytics'] } } });
    expect(answerOf(await post('Radar team', [weather]))).toEqual({ status: 422, body: { errors: { name: ['has already been taken'] } } });
  });

  it('may grant only the permissions they hold in a scope containing each of the group\'s scopes, by a new group or by editing their own', async () => {
    const radar = createScope(gw.context, 'Radar', HOST, '/weather/radar/');
    const post = (name: string, scopes: readonly ApiScope[], permission_ids: readonly string[]) =>
      asManager('POST', '/admin_groups', { admin_group: { name, api_scope_ids: scopes.map((s) => s.id), permission_ids } });
    expect((await post('Weather analysts', [weather], ['analytics'])).status).toBe(201);
    // admin_view comes with admin_manage (API Umbrella refuses a group without it), and is theirs to grant where admin_manage is, which shows the same.
    expect((await post('Radar managers', [radar], ['admin_manage', 'admin_view'])).status).toBe(201);

    const publishers = await post('Weather publishers', [weather], ['backend_publish']);
    expectForbidden(publishers);
    expect(publishers.body.errors[0].message).toContain('backend_publish');
    expectForbidden(await post('Weather user managers', [weather], ['analytics', 'user_manage', 'user_view']));
    expectForbidden(await post('Weather user viewers', [weather], ['user_view']));
    // backend_publish on /weather/radar/ alone does not cover /weather/; it does cover the radar scope.
    const radarPublishers = createGroup(gw.context, 'Radar publishers', [radar], ['backend_publish']);
    gw.context.adminGroups.setGroupsOf(manager.admin.id, [manager.groupId, radarPublishers.id]);
    expectForbidden(await post('Weather publishers', [weather], ['backend_publish']));
    expect((await post('Radar publishers too', [radar], ['backend_publish'])).status).toBe(201);

    // Nor by adding the permission to their own group.
    expectForbidden(await asManager('PUT', `/admin_groups/${manager.groupId}`, { admin_group: { permission_ids: ['admin_manage', 'admin_view', 'analytics', 'backend_publish'] } }));
    expect(gw.context.adminGroups.getGroup(manager.groupId)!.permission_ids).toEqual(['admin_manage', 'analytics']);
    expect(gw.context.adminGroups.listGroups().map((g) => g.name)).not.toContain('Weather publishers');

    // A superuser may grant anything anywhere.
    expect((await asRoot('POST', '/admin_groups', { admin_group: { name: 'Everything', api_scope_ids: [traffic.id], permission_ids: PERMISSION_IDS } })).status).toBe(201);
  });

  it('neither sees, joins nor hands out a group granting what they lack, nor moves a scope where they lack what its groups grant', async () => {
    const radar = createScope(gw.context, 'Radar', HOST, '/weather/radar/');
    // A superuser's group on the manager's ground, granting what the manager does not hold.
    const publishers = createGroup(gw.context, 'Weather publishers', [weather], ['backend_publish']);
    const publisher = await createMember(gw.context, 'publisher@example.com', [publishers.id]);
    expect(namesOf((await asManager('GET', '/admin_groups')).body.data)).not.toContain('Weather publishers');
    expectForbidden(await asManager('GET', `/admin_groups/${publishers.id}`));
    expectForbidden(await asManager('DELETE', `/admin_groups/${publishers.id}`));
    const admin = { email: 'new@example.com', password: PASSWORD, group_ids: [publishers.id] };
    expectForbidden(await asManager('POST', '/admins', { admin }), 'an admin in it');
    expectForbidden(await asManager('PUT', `/admins/${manager.admin.id}`, { admin: { group_ids: [manager.groupId, publishers.id] } }), 'joining it');
    // Its admin is in the manager's scopes, so seen, but holds more than the manager: not theirs to change.
    expect((await asManager('GET', `/admins/${publisher.id}`)).status).toBe(200);
    expectForbidden(await asManager('DELETE', `/admins/${publisher.id}`));
    expect(gw.context.adminGroups.groupIdsOf(manager.admin.id)).toEqual([manager.groupId]);

    // backend_publish on the radar scope only: the manager's own radar group may narrow it, not widen it.
    const radarPublishers = createGroup(gw.context, 'Radar publishers', [radar], ['backend_publish']);
    gw.context.adminGroups.setGroupsOf(manager.admin.id, [manager.groupId, radarPublishers.id]);
    const widened = await asManager('PUT', `/api_scopes/${radar.id}`, { api_scope: { path_prefix: '/weather/r' } });
    expectForbidden(widened);
    expect(widened.body.errors[0].message).toContain('backend_publish');
    expect(gw.context.adminGroups.getScope(radar.id)!.path_prefix).toBe('/weather/radar/');
    expect((await asManager('PUT', `/api_scopes/${radar.id}`, { api_scope: { path_prefix: '/weather/radar/v2/' } })).status).toBe(204);
  });

  it('changes a group only while it lies wholly within their scopes, before and after the change', async () => {
    const radar = createScope(gw.context, 'Radar', HOST, '/weather/radar/');
    const radarTeam = createGroup(gw.context, 'Radar team', [radar], ['analytics']);
    const mixed = createGroup(gw.context, 'Mixed team', [weather, traffic], ['analytics']);
    const trafficGroup = gw.context.adminGroups.getGroup(trafficTeam.groupId)!;

    expectForbidden(await asManager('PUT', `/admin_groups/${trafficTeam.groupId}`, { admin_group: { name: 'Taken over' } }));
    // Even a change that would put it wholly in their scopes.
    expectForbidden(await asManager('PUT', `/admin_groups/${mixed.id}`, { admin_group: { api_scope_ids: [weather.id] } }));
    expectForbidden(await asManager('PUT', `/admin_groups/${radarTeam.id}`, { admin_group: { api_scope_ids: [radar.id, traffic.id] } }));
    expect(gw.context.adminGroups.getGroup(trafficTeam.groupId)).toEqual(trafficGroup);
    expect(gw.context.adminGroups.getGroup(mixed.id)).toEqual(mixed);
    expect(gw.context.adminGroups.getGroup(radarTeam.id)).toEqual(radarTeam);

    expect(answerOf(await asManager('PUT', `/admin_groups/${radarTeam.id}`, { admin_group: { permission_ids: [] } }))).toEqual({ status: 422, body: { errors: { permissions: ["can't be blank"] } } });
    expect((await asManager('PUT', `/admin_groups/${radarTeam.id}`, { admin_group: { name: 'Radar crew', api_scope_ids: [weather.id, radar.id] } })).status).toBe(204);
    expect(gw.context.adminGroups.getGroup(radarTeam.id)).toMatchObject({ name: 'Radar crew', permission_ids: ['analytics'] });
    expect(gw.context.adminGroups.getGroup(radarTeam.id)!.api_scope_ids).toHaveLength(2);
  });

  it('deletes only the groups that lie wholly within their scopes', async () => {
    const radarTeam = createGroup(gw.context, 'Radar team', [createScope(gw.context, 'Radar', HOST, '/weather/radar/')], ['analytics']);
    const mixed = createGroup(gw.context, 'Mixed team', [weather, traffic], ['analytics']);
    expectForbidden(await asManager('DELETE', `/admin_groups/${mixed.id}`));
    expectForbidden(await asManager('DELETE', `/admin_groups/${trafficTeam.groupId}`));
    expect(gw.context.adminGroups.getGroup(mixed.id)).not.toBeNull();
    expect(gw.context.adminGroups.getGroup(trafficTeam.groupId)).not.toBeNull();
    expect((await asManager('DELETE', `/admin_groups/${radarTeam.id}`)).status).toBe(204);
    expect(gw.context.adminGroups.getGroup(radarTeam.id)).toBeNull();
  });
});

describe('admin accounts for an admin_manage holder', () => {
  it('lists and reads the accounts in groups within their scopes, without admin_view, and no other admin\'s token preview', async () => {
    const radarTeam = createGroup(gw.context, 'Radar team', [createScope(gw.context, 'Radar', HOST, '/weather/radar/')], ['analytics']);
    const weatherMember = await createMember(gw.context, 'weather-member@example.com', [manager.groupId]);
    await createMember(gw.context, 'radar-member@example.com', [radarTeam.id]);
    await createMember(gw.context, 'in-no-group@example.com', []);

    const list = await asManager('GET', '/admins');
    expect(list.status).toBe(200);
    expect(emailsOf(list.body.data)).toEqual(['manager@example.com', 'radar-member@example.com', 'weather-member@example.com']);
    const read = await asManager('GET', `/admins/${weatherMember.id}`);
    expect(read.body.admin).toMatchObject({ email: 'weather-member@example.com', group_ids: [manager.groupId], auth_token_preview: null });
    expect(list.body.data.find((admin: { id: string }) => admin.id === manager.admin.id).auth_token_preview).toBe(`${manager.authToken.slice(0, 6)}...`);
    // Accounts out of sight are not there.
    const rootId = gw.context.admins.list().find((admin) => admin.superuser)!.id;
    for (const id of [trafficTeam.admin.id, rootId]) expect(answerOf(await asManager('GET', `/admins/${id}`))).toEqual({ status: 404, body: { error: 'Not Found' } });
  });

  it('adds an admin only into groups wholly within their scopes, never a superuser nor one in no group', async () => {
    const radarTeam = createGroup(gw.context, 'Radar team', [createScope(gw.context, 'Radar', HOST, '/weather/radar/')], ['analytics']);
    const mixed = createGroup(gw.context, 'Mixed team', [weather, traffic], ['analytics']);
    const post = (fields: Record<string, unknown>) => asManager('POST', '/admins', { admin: { email: 'new@example.com', password: PASSWORD, ...fields } });
    // In no group: refused to anyone, in API Umbrella's words.
    for (const invalid of [{}, { group_ids: [] }]) {
      const answer = await post(invalid);
      expect(answer.status, JSON.stringify(invalid)).toBe(422);
      expect(answer.body.errors).toEqual([{ code: 'INVALID_INPUT', field: 'groups', message: 'must belong to at least one group or be a superuser', full_message: 'Groups: must belong to at least one group or be a superuser' }]);
    }
    for (const refused of [
      { superuser: true, group_ids: [manager.groupId] },
      { group_ids: [trafficTeam.groupId] },
      { group_ids: [manager.groupId, trafficTeam.groupId] },
      { group_ids: [mixed.id] },
    ]) {
      expectForbidden(await post(refused), JSON.stringify(refused));
    }
    expect(gw.context.admins.findByEmail('new@example.com')).toBeNull();

    const invalid = await post({ email: 'not-an-email', password: 'short', group_ids: [radarTeam.id] });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['email', 'password']);

    const created = await post({ group_ids: [radarTeam.id] });
    expect(created.status).toBe(201);
    expect(created.body.admin).toMatchObject({ email: 'new@example.com', superuser: false, enabled: true, group_ids: [radarTeam.id] });
    const token = created.body.admin.authentication_token as string;
    expect(gw.context.admins.findByToken(token)?.email).toBe('new@example.com');
    expect(gw.context.adminGroups.groupIdsOf(created.body.admin.id)).toEqual([radarTeam.id]);
    // Shown once: reading the account again gives no token.
    expect((await asManager('GET', `/admins/${created.body.admin.id}`)).body.admin.authentication_token).toBeUndefined();
  });

  it('may not change or delete an admin they see but do not manage: a superuser, or one also in another team\'s group', async () => {
    const both = await createMember(gw.context, 'both@example.com', [manager.groupId, trafficTeam.groupId]);
    const weatherRoot = await createMember(gw.context, 'weather-root@example.com', [manager.groupId], true);
    for (const target of [both, weatherRoot]) {
      const groupsBefore = gw.context.adminGroups.groupIdsOf(target.id).sort();
      expect((await asManager('GET', `/admins/${target.id}`)).status, target.email).toBe(200);
      expectForbidden(await asManager('PUT', `/admins/${target.id}`, { admin: { email: 'taken-over@example.com' } }), target.email);
      // Taking them out of the other team's group would make them managed: refused too.
      expectForbidden(await asManager('PUT', `/admins/${target.id}`, { admin: { superuser: false, group_ids: [manager.groupId] } }), target.email);
      expectForbidden(await asManager('DELETE', `/admins/${target.id}`), target.email);
      expect(gw.context.admins.get(target.id)).toEqual(target);
      expect(gw.context.adminGroups.groupIdsOf(target.id).sort()).toEqual(groupsBefore);
    }
    // Another team's admin is out of sight.
    expect((await asManager('PUT', `/admins/${trafficTeam.admin.id}`, { admin: { email: 'taken-over@example.com' } })).status).toBe(404);
    expect((await asManager('DELETE', `/admins/${trafficTeam.admin.id}`)).status).toBe(404);
    expect(gw.context.admins.get(trafficTeam.admin.id)).not.toBeNull();
  });

  it('changes an admin they manage only within their scopes, and deletes them', async () => {
    const radarTeam = createGroup(gw.context, 'Radar team', [createScope(gw.context, 'Radar', HOST, '/weather/radar/')], ['analytics']);
    const target = await createMember(gw.context, 'weather-member@example.com', [manager.groupId]);
    for (const refused of [{ superuser: true }, { group_ids: [trafficTeam.groupId] }, { group_ids: [manager.groupId, trafficTeam.groupId] }]) {
      expectForbidden(await asManager('PUT', `/admins/${target.id}`, { admin: refused }), JSON.stringify(refused));
    }
    expect((await asManager('PUT', `/admins/${target.id}`, { admin: { group_ids: [] } })).status).toBe(422);
    expect(gw.context.admins.get(target.id)).toEqual(target);
    expect(gw.context.adminGroups.groupIdsOf(target.id)).toEqual([manager.groupId]);

    const changed = await asManager('PUT', `/admins/${target.id}`, { admin: { email: 'renamed@example.com', enabled: false, group_ids: [radarTeam.id] } });
    expect(changed.status).toBe(200);
    expect(changed.body.admin).toMatchObject({ email: 'renamed@example.com', enabled: false, group_ids: [radarTeam.id], auth_token_preview: null });
    expect(gw.context.admins.get(target.id)).toMatchObject({ email: 'renamed@example.com', superuser: false, enabled: false });
    expect(gw.context.adminGroups.groupIdsOf(target.id)).toEqual([radarTeam.id]);
    expect((await asManager('DELETE', `/admins/${target.id}`)).status).toBe(204);
    expect(gw.context.admins.get(target.id)).toBeNull();
  });
});

describe('a superuser', () => {
  it('still sees, changes and deletes every scope, group and admin', async () => {
    const mixed = createGroup(gw.context, 'Mixed team', [weather, traffic], ['analytics']);
    expect((await asRoot('GET', '/api_scopes')).body.recordsTotal).toBe(2);
    expect((await asRoot('GET', '/admin_groups')).body.recordsTotal).toBe(3);
    expect((await asRoot('GET', '/admins')).body.recordsTotal).toBe(3);
    const promoted = await asRoot('PUT', `/admins/${trafficTeam.admin.id}`, { admin: { superuser: true, group_ids: [] } });
    expect(promoted.status).toBe(200);
    expect((await asRoot('PUT', `/admin_groups/${mixed.id}`, { admin_group: { permission_ids: PERMISSION_IDS } })).status).toBe(204);
    expect((await asRoot('DELETE', `/admins/${manager.admin.id}`)).status).toBe(204);
    expect((await asRoot('DELETE', `/admin_groups/${mixed.id}`)).status).toBe(204);
    expect(gw.context.admins.get(trafficTeam.admin.id)!.superuser).toBe(true);
  });
});
