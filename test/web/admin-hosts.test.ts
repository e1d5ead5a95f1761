// admin.hosts, the fix for the security review's H2: a proxied page on the
// web admin's origin could read admin pages with a signed-in superuser's
// session and act as them. With the admin on a host of its own, the admin's
// pages and API answer only there, as a path no backend claims elsewhere, and
// no backend is served there; health, state, signup, contact, the homepage
// and the assets stay on every host.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_HOST as ON_ADMIN_HOST } from '../../src/api-backends/service.js';
import { parseApiBackend } from '../../src/api-backends/validate.js';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import type { Config } from '../../src/config/schema.js';
import { testConfig } from '../helpers/config.js';
import type { TestGateway } from '../helpers/gateway.js';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture, type Reply } from '../gateway/support.js';
import { VALID_SIGNUP } from '../signup/signup-app.js';

const ADMIN_HOST = 'admin.example';
const API_HOST = 'api.example';

/** A request for `host` (the Host header). */
function on(gw: TestGateway, host: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return send(gw.url, path, { ...options, headers: { host, ...options.headers } });
}

/** The admin API as the superuser, on `host`. */
function adminApiOn(gw: TestGateway, host: string, method: string, path: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = { 'x-admin-auth-token': gw.adminToken };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return on(gw, host, `/api-umbrella/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Creates and publishes a backend through the admin API on the admin's host. */
async function publishOnAdminHost(gw: TestGateway, api: Record<string, unknown>): Promise<string> {
  const created = await adminApiOn(gw, ADMIN_HOST, 'POST', '/apis', { api });
  expect(created.status, created.text).toBe(201);
  const id = (JSON.parse(created.text) as { api: { id: string } }).api.id;
  expect((await adminApiOn(gw, ADMIN_HOST, 'POST', '/config/publish', { config: { apis: { [id]: { publish: '1' } } } })).status).toBe(201);
  return id;
}

/** A backend on the admin's host, as saved before admin.hosts named it (saving it now is refused), published. */
async function publishSavedBefore(gw: TestGateway, api: Record<string, unknown>): Promise<void> {
  const parsed = parseApiBackend(api);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const { id } = gw.context.backends.create(parsed.value, 'test');
  expect((await adminApiOn(gw, ADMIN_HOST, 'POST', '/config/publish', { config: { apis: { [id]: { publish: '1' } } } })).status).toBe(201);
}

function expectNotFound(reply: Reply, what: string): void {
  expect(reply.status, what).toBe(404);
  expect(reply.headers['content-type'], what).toBe('application/json');
  expect(errorCode(reply), what).toBe('NOT_FOUND');
}

describe('with admin.hosts set', () => {
  let fx: ProxyFixture;
  let keyCreatorKey: string;
  beforeAll(async () => {
    fx = await startProxyFixture({ config: { admin: { hosts: ['Admin.Example'] }, signup: { rate_limit_per_minute: 1000, rate_limit_per_hour: 1000 } } });
    keyCreatorKey = (await fx.gw.createUser({ email: 'embed@example.com', roles: [KEY_CREATOR_ROLE] })).apiKey;
    // On every host: the admin's own host is closed to it all the same.
    await publishOnAdminHost(fx.gw, echoBackend(fx.echo));
    await publishSavedBefore(fx.gw, echoBackend(fx.echo, { frontend_host: ADMIN_HOST, url_matches: [{ frontend_prefix: '/named/', backend_prefix: '/backend/' }] }));
  });
  afterAll(() => fx.close());

  it('serves the web admin and the admin API on an admin host, on any port and in any case', async () => {
    for (const host of [ADMIN_HOST, 'ADMIN.example:8080']) {
      const page = await on(fx.gw, host, '/admin/login');
      expect([page.status, page.text.includes('<h1>Sign in</h1>')], host).toEqual([200, true]);
      expect((await adminApiOn(fx.gw, host, 'GET', '/apis')).status, host).toBe(200);
    }
  });

  it('answers the web admin, its stats and the admin API on another host as a path no backend claims', async () => {
    const paths = ['/admin', '/admin/', '/admin/login', '/admin/setup', '/admin/apis', '/admin/account', '/admin/stats/logs.json', '/admin/nowhere', '/admins/signup', '/api-umbrella/v1/analytics/drilldown.json'];
    for (const path of paths) expectNotFound(await on(fx.gw, API_HOST, path), path);
    const html = await on(fx.gw, API_HOST, '/admin/login', { headers: { accept: 'text/html' } });
    expect([html.status, html.headers['content-type']]).toEqual([404, 'text/html']);
    expect(html.text).not.toContain('Sign in');
    // A sign-in there is not even looked at.
    const signIn = await on(fx.gw, API_HOST, '/admin/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a%40example.com&password=x' });
    expectNotFound(signIn, 'POST /admin/login');

    expectNotFound(await adminApiOn(fx.gw, API_HOST, 'GET', '/apis'), 'GET /apis');
    expectNotFound(await adminApiOn(fx.gw, `${API_HOST}:8080`, 'GET', '/admins'), 'GET /admins');
    const before = fx.gw.context.backends.list().length;
    expectNotFound(await adminApiOn(fx.gw, API_HOST, 'POST', '/apis', { api: echoBackend(fx.echo) }), 'POST /apis');
    expect(fx.gw.context.backends.list()).toHaveLength(before);
  });

  it("reads the host as the gateway does, a trusted proxy's X-Forwarded-Host first", async () => {
    // Loopback is always a trusted proxy.
    expectNotFound(await on(fx.gw, ADMIN_HOST, '/admin/login', { headers: { 'x-forwarded-host': API_HOST } }), 'forwarded for the API host');
    expect((await on(fx.gw, API_HOST, '/admin/login', { headers: { 'x-forwarded-host': ADMIN_HOST } })).status).toBe(200);
    expect((await on(fx.gw, API_HOST, '/echo/x', { headers: { 'x-forwarded-host': ADMIN_HOST, 'x-api-key': fx.apiKey } })).status).toBe(404);
  });

  it('keeps health, state, the signup and contact pages, the homepage, key validation and the assets on every host', async () => {
    const everywhere = ['/api-umbrella/v1/health', '/api-umbrella/v1/state.json', '/signup/', '/contact/', '/', '/assets/favicon.svg', `/api-umbrella/api-users/${fx.apiKey}/validate.json?api_key=${fx.apiKey}`];
    for (const host of [API_HOST, ADMIN_HOST]) {
      for (const path of everywhere) expect((await on(fx.gw, host, path)).status, `${host}${path}`).toBe(200);
      // The contact API answers for itself (here: no mailer to send with), not as a path no one claims.
      const contact = await on(fx.gw, host, '/api-umbrella/v1/contact.json', { method: 'POST', headers: { 'x-api-key': fx.apiKey, 'content-type': 'application/json' }, body: '{}' });
      expect([contact.status, contact.text.includes('NOT_FOUND')], host).not.toEqual([404, true]);
    }
  });

  it('takes a signup with a key-creator key on every host, and an admin token only on an admin host', async () => {
    const signUp = (host: string, headers: Record<string, string>, email: string) =>
      on(fx.gw, host, '/api-umbrella/v1/users.json', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ user: { ...VALID_SIGNUP, email } }) });
    expect((await signUp(API_HOST, { 'x-api-key': keyCreatorKey }, 'embedded@example.com')).status).toBe(201);
    expectNotFound(await signUp(API_HOST, { 'x-admin-auth-token': fx.gw.adminToken }, 'by-admin-elsewhere@example.com'), 'admin token off the admin host');
    // A key creator's key beside it does not make the admin's call one to take there.
    expectNotFound(await signUp(API_HOST, { 'x-admin-auth-token': fx.gw.adminToken, 'x-api-key': keyCreatorKey }, 'both@example.com'), 'admin token and key');
    expect(fx.gw.context.users.countByEmail('by-admin-elsewhere@example.com') + fx.gw.context.users.countByEmail('both@example.com')).toBe(0);
    expect((await signUp(ADMIN_HOST, { 'x-admin-auth-token': fx.gw.adminToken }, 'by-admin@example.com')).status).toBe(201);
  });

  it('serves no backend on an admin host, on any port, while a backend on * serves every other host', async () => {
    const key = { 'x-api-key': fx.apiKey };
    const served = await on(fx.gw, API_HOST, '/echo/x', { headers: key });
    expect([served.status, served.echoed.url]).toEqual([200, '/backend/x']);
    expect((await on(fx.gw, 'other.example:8080', '/echo/x', { headers: key })).status).toBe(200);
    for (const host of [ADMIN_HOST, 'Admin.Example:8443']) {
      expectNotFound(await on(fx.gw, host, '/echo/x', { headers: key }), `${host} /echo/x`);
      expectNotFound(await on(fx.gw, host, '/named/x', { headers: key }), `${host} /named/x`);
    }
  });

  it('refuses to save a backend on an admin host, in any case and with any port, where it would never be served', async () => {
    const before = fx.gw.context.backends.list().length;
    for (const frontendHost of ['admin.example', 'ADMIN.example:8080']) {
      const refused = await adminApiOn(fx.gw, ADMIN_HOST, 'POST', '/apis', { api: echoBackend(fx.echo, { frontend_host: frontendHost }) });
      expect([refused.status, JSON.parse(refused.text)], frontendHost).toEqual([422, { errors: { frontend_host: [ON_ADMIN_HOST] } }]);
    }
    expect(fx.gw.context.backends.list()).toHaveLength(before);
    // A wildcard takes in the admin's host too, and serves every other one.
    expect((await adminApiOn(fx.gw, ADMIN_HOST, 'POST', '/apis', { api: echoBackend(fx.echo, { frontend_host: '*.example' }) })).status).toBe(201);
  });
});

describe('admin.hosts at a reload', () => {
  let fx: ProxyFixture | null = null;
  afterEach(async () => {
    await fx?.close();
    fx = null;
  });

  it('moves the admin to its hosts and closes them to the backends without a restart', async () => {
    fx = await startProxyFixture();
    await fx.gw.publishBackend(echoBackend(fx.echo));
    const key = { 'x-api-key': fx.apiKey };
    expect((await on(fx.gw, API_HOST, '/admin/login')).status).toBe(200);
    expect((await on(fx.gw, ADMIN_HOST, '/echo/x', { headers: key })).status).toBe(200);

    const config: Config = testConfig({ ...structuredClone(fx.gw.context.config), admin: { ...fx.gw.context.config.admin, hosts: [ADMIN_HOST] } });
    expect(await fx.gw.reload(config)).toMatchObject({ applied: ['admin.hosts'], needRestart: [] });
    expectNotFound(await on(fx.gw, API_HOST, '/admin/login'), 'admin page on the API host');
    expectNotFound(await adminApiOn(fx.gw, API_HOST, 'GET', '/apis'), 'admin API on the API host');
    expectNotFound(await on(fx.gw, ADMIN_HOST, '/echo/x', { headers: key }), 'backend on the admin host');
    expect((await on(fx.gw, ADMIN_HOST, '/admin/login')).status).toBe(200);
    expect((await on(fx.gw, API_HOST, '/echo/x', { headers: key })).status).toBe(200);
  });
});
