// Real sockets: the pages that show a new API key or Admin API Token once give
// a curl example against the gateway itself (public_url, or where the admin
// reached it) and, for a key, the first published backend it may call; the
// examples work as written.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStore, SESSION_COOKIE } from '../../src/admin-ui/session-auth.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { csrfTokenIn, echoBackend } from '../signup/signup-app.js';

interface Page {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly html: string;
}

/** A signed-in admin's browser over HTTP: keeps cookies, and posts a form with the CSRF token of the page it came from. */
function adminBrowser(gw: TestGateway) {
  const adminId = gw.context.admins.findByToken(gw.adminToken)!.id;
  const cookies = new Map([[SESSION_COOKIE, sessionStore(gw.context).create(adminId)]]);
  const send = async (path: string, init: { method?: 'GET' | 'POST'; body?: string } = {}): Promise<Page> => {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers = { cookie, ...(init.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) };
    const response = await request(`${gw.url}${path}`, { method: init.method ?? 'GET', headers, body: init.body });
    for (const set of [response.headers['set-cookie'] ?? []].flat()) {
      const [name, value] = set.split(';')[0]!.split('=') as [string, string];
      cookies.set(name, value);
    }
    return { status: response.statusCode, headers: response.headers, html: await response.body.text() };
  };
  return {
    async submit(formPath: string, action: string, fields: Record<string, string> = {}): Promise<Page> {
      const form = await send(formPath);
      return send(action, { method: 'POST', body: new URLSearchParams({ _csrf: csrfTokenIn(form.html), ...fields }).toString() });
    },
  };
}

/** The example in the element with this test id, as a shell would read it: header and URL. */
function curlOnPage(html: string, testId: string): { command: string; header: [string, string]; url: string } {
  const code = new RegExp(`<code data-testid="${testId}">([^<]*)</code>`).exec(html)?.[1];
  if (code === undefined) throw new Error(`no ${testId} on the page`);
  const command = code.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const [, name, value, url] = /^curl -H '([^:']+): ([^']*)' '([^']*)'$/.exec(command)!;
  return { command, header: [name!, value!], url: url! };
}

function keyOnPage(html: string): string {
  return /id="api-key"[^>]*value="([A-Za-z0-9]{40})"/.exec(html)![1]!;
}

const NEW_USER = { first_name: 'Dana', last_name: 'Dev', enabled: '1' };

describe('with published backends, reached at its own address', () => {
  let gw: TestGateway;
  let echo: EchoUpstream;
  beforeAll(async () => {
    echo = await startEchoUpstream();
    gw = await startTestGateway();
    // Created first, so first in the published config: a key without the role cannot call it.
    await gw.publishBackend(echoBackend(echo, 'Partner API', '/partner/', { settings: { required_roles: ['partner'] } }));
    await gw.publishBackend(echoBackend(echo, 'Echo', '/echo/'));
  });
  afterAll(async () => {
    await gw?.stop();
    await echo?.close();
  });

  it("shows a new user's key with an example calling the first backend it may call, which works as written", async () => {
    const created = await adminBrowser(gw).submit('/admin/api_users/new', '/admin/api_users', { ...NEW_USER, email: 'dev@example.com' });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const apiKey = keyOnPage(created.html);
    const example = curlOnPage(created.html, 'api-key-example');
    expect(example.command).toBe(`curl -H 'X-Api-Key: ${apiKey}' '${gw.url}/echo/'`);
    expect(created.html).toContain('e.g. to <strong>Echo</strong>');
    expect(created.html).not.toContain('your-host');
    expect(created.html).not.toContain('data-testid="api-key-example-note"');
    const called = await request(example.url, { headers: Object.fromEntries([example.header]) });
    expect(called.statusCode).toBe(200);
    await called.body.dump();
  });

  it('shows a regenerated key with an example calling a backend that requires one of its roles', async () => {
    const { id } = await gw.createUser({ email: 'partner@example.com', roles: ['partner'] });
    const regenerated = await adminBrowser(gw).submit(`/admin/api_users/${id}`, `/admin/api_users/${id}/regenerate_key`, { confirmed: '1' });
    expect(regenerated.status).toBe(200);
    expect(regenerated.headers['cache-control']).toBe('no-store');
    const example = curlOnPage(regenerated.html, 'api-key-example');
    expect(example.url).toBe(`${gw.url}/partner/`);
    expect(example.header).toEqual(['X-Api-Key', keyOnPage(regenerated.html)]);
    expect(regenerated.html).toContain('e.g. to <strong>Partner API</strong>');
    const called = await request(example.url, { headers: Object.fromEntries([example.header]) });
    expect(called.statusCode).toBe(200);
    await called.body.dump();
  });

  it('shows a new Admin API Token with an example calling the admin API, which works as written', async () => {
    const page = await adminBrowser(gw).submit('/admin/account', '/admin/account/token', { confirmed: '1' });
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    const token = /id="admin-token"[^>]*value="([A-Za-z0-9]{40})"/.exec(page.html)![1]!;
    const example = curlOnPage(page.html, 'admin-token-example');
    expect(example.command).toBe(`curl -H 'X-Admin-Auth-Token: ${token}' '${gw.url}/api-umbrella/v1/apis'`);
    const called = await request(example.url, { headers: Object.fromEntries([example.header]) });
    expect(called.statusCode).toBe(200);
    await called.body.dump();
  });
});

describe('with public_url set and nothing published', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ public_url: 'https://api.example.com/' });
  });
  afterAll(() => gw?.stop());

  it('shows a new key with an example calling the base URL, and says that no backend takes it yet', async () => {
    const created = await adminBrowser(gw).submit('/admin/api_users/new', '/admin/api_users', { ...NEW_USER, email: 'early@example.com' });
    expect(created.status).toBe(201);
    expect(curlOnPage(created.html, 'api-key-example').command).toBe(`curl -H 'X-Api-Key: ${keyOnPage(created.html)}' 'https://api.example.com/'`);
    expect(created.html).toMatch(/data-testid="api-key-example-note">No published API backend takes this key yet: add an API's path to the URL\.</);
  });

  it('shows a new Admin API Token with an example on public_url', async () => {
    const page = await adminBrowser(gw).submit('/admin/account', '/admin/account/token', { confirmed: '1' });
    expect(curlOnPage(page.html, 'admin-token-example').url).toBe('https://api.example.com/api-umbrella/v1/apis');
  });
});
