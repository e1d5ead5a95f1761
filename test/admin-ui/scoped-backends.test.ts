// Admin groups in the web admin's API Backends and Publish Changes: an admin
// who is not a superuser sees and changes only the backends within their
// reach, keeps what they typed when a change is refused, and publishes only
// changes within their reach.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiBackend } from '../../src/api-backends/model.js';
import { PUBLISHED } from '../../src/admin-ui/publish-pages.js';
import { createScopedAdmin, SCOPED_PASSWORD } from '../helpers/scoped-admin.js';
import { BAR_ROLE, FOO_AREA, HOST, draftBackend, seedPendingChanges, seedTwoTeams, type TwoTeams } from '../helpers/scoped-backends.js';
import { AdminClient, startAdminApp, textOf, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp;
let teams: TwoTeams;
let client: AdminClient;

beforeEach(async () => {
  running = await startAdminApp();
  teams = await seedTwoTeams(running.context);
  client = await signedIn('foo-team@example.com');
});
afterEach(() => running.close());

async function signedIn(email: string): Promise<AdminClient> {
  const signingIn = new AdminClient(running.app);
  await signingIn.signIn(email, SCOPED_PASSWORD);
  return signingIn;
}

/** The backend form's fields for `api`, with `changes` over them. */
function formOf(api: ApiBackend, changes: Record<string, string> = {}): Record<string, string> {
  const fields: Record<string, string> = {
    name: api.name,
    backend_protocol: api.backend_protocol,
    balance_algorithm: api.balance_algorithm,
    'servers[0][host]': api.servers[0]!.host,
    'servers[0][port]': String(api.servers[0]!.port),
    frontend_host: api.frontend_host,
    backend_host: api.backend_host,
    'settings[required_roles]': api.settings.required_roles.join(', '),
  };
  api.url_matches.forEach((match, index) => {
    fields[`url_matches[${index}][frontend_prefix]`] = match.frontend_prefix;
    fields[`url_matches[${index}][backend_prefix]`] = match.backend_prefix;
  });
  return { ...fields, ...changes };
}

function expectForbiddenPage(response: { statusCode: number; body: string }): void {
  expect(response.statusCode).toBe(403);
  const text = textOf(response.body);
  expect(text).toContain('Not authorized');
  expect(text).toContain(FOO_AREA);
}

describe('API Backends for an admin of one team', () => {
  it('lists only the backends within reach, and counts only its deleted live ones', async () => {
    const { publisher, backends } = running.context;
    const gone = draftBackend(running.context, 'Foo gone', ['/foo/gone/']);
    publisher.publish([teams.foo.id, teams.bar.id, gone.id], 'root@example.com');
    backends.delete(teams.bar.id);
    backends.delete(gone.id);
    const text = textOf((await client.get('/admin/apis')).body);
    expect(text).toContain('Foo API');
    for (const name of ['Bar API', 'Half API', 'Other Host API']) expect(text).not.toContain(name);
    expect(text).toContain('1 deleted API backend is still live');
  });

  it("refuses another team's backend, one half in scope and one on another host: edit, save, delete page and delete", async () => {
    await client.get('/admin/apis/new');
    for (const api of [teams.bar, teams.half, teams.otherHost]) {
      expectForbiddenPage(await client.get(`/admin/apis/${api.id}/edit`));
      expectForbiddenPage(await client.post(`/admin/apis/${api.id}`, formOf(api, { frontend_host: HOST, 'url_matches[0][frontend_prefix]': '/foo/mine/' })));
      expectForbiddenPage(await client.get(`/admin/apis/${api.id}/delete`));
      expectForbiddenPage(await client.post(`/admin/apis/${api.id}/delete`));
      expect(running.context.backends.get(api.id)).toEqual(api);
    }
  });

  it('keeps what was typed and marks the prefix out of scope, naming the scopes, when a new backend would not be within reach', async () => {
    await client.get('/admin/apis/new');
    const response = await client.post('/admin/apis', formOf(teams.half, { name: 'Typed name', 'url_matches[1][frontend_prefix]': '/bar/typed/' }));
    expect(response.statusCode).toBe(422);
    const text = textOf(response.body);
    expect(text).toContain(`This API backend must lie within your API scopes (${FOO_AREA})`);
    expect(text).toContain('URL Prefix 2 › Frontend Prefix is outside your API scopes');
    expect(response.body).toMatch(/id="f-url_matches-1-frontend_prefix"[^>]*value="\/bar\/typed\/"[^>]*aria-invalid="true"/);
    expect(response.body).toMatch(/id="f-url_matches-0-frontend_prefix"[^>]*value="\/foo\/half\/"(?![^>]*aria-invalid)/);
    expect(response.body).toContain('value="Typed name"');
    expect(running.context.backends.list()).toHaveLength(4);
  });

  it('may not move its own backend to another host, and saves it within its scope', async () => {
    await client.get(`/admin/apis/${teams.foo.id}/edit`);
    const moved = await client.post(`/admin/apis/${teams.foo.id}`, formOf(teams.foo, { frontend_host: 'other.example.com' }));
    expect(moved.statusCode).toBe(422);
    expect(textOf(moved.body)).toContain('URL Prefix 1 › Frontend Prefix is outside your API scopes');
    expect(moved.body).toContain('value="other.example.com"');
    expect(running.context.backends.get(teams.foo.id)).toEqual(teams.foo);

    const saved = await client.post(`/admin/apis/${teams.foo.id}`, formOf(teams.foo, { 'url_matches[0][frontend_prefix]': '/foo/v2/' }));
    expect(saved.statusCode).toBe(303);
    expect(running.context.backends.get(teams.foo.id)!.url_matches[0]!.frontend_prefix).toBe('/foo/v2/');
  });

  it("says it may not give its backend a role another team's backend requires, keeping the form, and saves its own roles", async () => {
    await client.get(`/admin/apis/${teams.foo.id}/edit`);
    const refused = await client.post(`/admin/apis/${teams.foo.id}`, formOf(teams.foo, { 'settings[required_roles]': `foo-reader, ${BAR_ROLE}` }));
    expect(refused.statusCode).toBe(422);
    expect(textOf(refused.body)).toContain(`You are not authorized to give or take the role "${BAR_ROLE}"`);
    expect(refused.body).toMatch(new RegExp(`id="f-settings-required_roles"[^>]*value="foo-reader, ${BAR_ROLE}"[^>]*aria-invalid="true"`));
    expect(running.context.backends.get(teams.foo.id)).toEqual(teams.foo);

    const saved = await client.post(`/admin/apis/${teams.foo.id}`, formOf(teams.foo, { 'settings[required_roles]': 'foo-reader' }));
    expect(saved.statusCode).toBe(303);
    expect(running.context.backends.get(teams.foo.id)!.settings.required_roles).toEqual(['foo-reader']);
  });

  it('refuses the pages to an admin without backend_manage', async () => {
    await createScopedAdmin(running.context, { email: 'publisher@example.com', scopes: [{ host: HOST, path_prefix: '/foo' }], permissions: ['backend_publish'] });
    const publisher = await signedIn('publisher@example.com');
    for (const path of ['/admin/apis', '/admin/apis/new', `/admin/apis/${teams.foo.id}/edit`]) expectForbiddenPage(await publisher.get(path));
  });
});

describe('Publish Changes for an admin of one team', () => {
  const checked = (...ids: string[]) => Object.fromEntries(ids.map((id) => [`config[apis][${id}][publish]`, '1']));

  it('shows only the changes within reach, and no version history', async () => {
    seedPendingChanges(running.context, teams);
    const text = textOf((await client.get('/admin/config/publish')).body);
    expect(text).toMatch(/1 New API Backends .*Foo fresh/);
    expect(text).toMatch(/1 Modified API Backends .*Foo API/);
    expect(text).toMatch(/1 Deleted API Backends .*Foo gone/);
    for (const name of ['Bar API', 'Half API', 'Other Host API', 'Foo moved', 'Version history', 'Roll back']) expect(text).not.toContain(name);
  });

  it('publishes nothing when a checked backend is out of reach, and its own changes otherwise', async () => {
    const { moved, fresh } = seedPendingChanges(running.context, teams);
    const { publisher } = running.context;
    const live = publisher.current;
    await client.get('/admin/config/publish');
    for (const outOfReach of [teams.bar.id, moved.id, teams.half.id]) {
      expectForbiddenPage(await client.post('/admin/config/publish', checked(fresh.id, outOfReach)));
      expect(publisher.current).toBe(live);
    }
    const published = await client.post('/admin/config/publish', checked(fresh.id));
    expect(textOf((await client.follow(published)).body)).toContain(PUBLISHED);
    expect(publisher.current.apis.map((api) => api.name)).toContain('Foo fresh');
  });

  it('may not roll back', async () => {
    const { publisher } = running.context;
    publisher.publish([teams.foo.id], 'root@example.com');
    publisher.publish([teams.bar.id], 'root@example.com');
    await client.get('/admin/config/publish');
    expectForbiddenPage(await client.post('/admin/config/rollback', { version_id: '1' }));
    expect(publisher.current.version).toBe(2);
  });

  it('refuses the page to an admin without backend_publish', async () => {
    await createScopedAdmin(running.context, { email: 'editor@example.com', scopes: [{ host: HOST, path_prefix: '/foo' }], permissions: ['backend_manage'] });
    const editor = await signedIn('editor@example.com');
    expectForbiddenPage(await editor.get('/admin/config/publish'));
    await editor.get('/admin/apis');
    expectForbiddenPage(await editor.post('/admin/config/publish', checked(teams.foo.id)));
    expect(running.context.publisher.current.version).toBeNull();
  });
});
