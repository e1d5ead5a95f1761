// The API user form's "Restrict Access to IPs" and "Restrict Access to HTTP
// Referers": saved through parseApiUser()'s validation, shown back one per line,
// and enforced by the proxy for a key saved this way.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KeyIndex } from '../../src/api-users/key-index.js';
import { apiUserInput } from '../helpers/users.js';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture } from '../gateway/support.js';
import { AdminClient, createAdmin, startSignedIn, textOf, type AdminApp } from './helpers/admin-client.js';

const NAMES = { email: 'dev@example.com', first_name: 'Dana', last_name: 'Dev', enabled: '1' };
const IPS = 'settings[allowed_ips]';
const REFERERS = 'settings[allowed_referers]';

/** Adds a user through the form; returns the page and the stored user (found by its one-time key). */
async function addThroughForm(client: AdminClient, keys: KeyIndex, fields: Record<string, string>) {
  await client.get('/admin/api_users/new');
  const page = await client.post('/admin/api_users', { ...NAMES, ...fields });
  const apiKey = /id="api-key"[^>]*value="([A-Za-z0-9]{40})"/.exec(page.body)?.[1] ?? '';
  return { page, apiKey, user: keys.find(apiKey)?.user };
}

/** The text of the textarea named `name`, as the page holds it (escaped). */
function textareaOf(html: string, name: string): string | undefined {
  return new RegExp(`<textarea [^>]*name="${name.replace(/[[\]]/g, '\\$&')}"[^>]*>([^<]*)</textarea>`).exec(html)?.[1];
}

describe('the API user form', () => {
  let running: AdminApp;
  let client: AdminClient;
  beforeEach(async () => {
    ({ running, client } = await startSignedIn());
  });
  afterEach(() => running.close());

  it('offers both fields with hints on what to enter and what empty means', async () => {
    const text = textOf((await client.get('/admin/api_users/new')).body);
    expect(text).toContain('Restrict Access to IPs');
    expect(text).toContain('One IP address or CIDR range per line (IPv4 or IPv6). Empty: the key works from any address.');
    expect(text).toContain('Restrict Access to HTTP Referers');
    expect(text).toContain('One pattern per line; * matches any text, e.g. *.example.com/*. Empty: the key works from any referer.');
  });

  it('stores both lists on create, one entry per line, trimmed, blank lines ignored', async () => {
    const { page, user } = await addThroughForm(client, running.context.keyIndex, {
      [IPS]: ' 192.0.2.0/24\r\n\r\n2001:db8::/32 \r\n',
      [REFERERS]: '*.example.com/*\r\n  https://partner.test/app/*',
    });
    expect(page.statusCode).toBe(201);
    expect(user?.settings).toMatchObject({ allowed_ips: ['192.0.2.0/24', '2001:db8::/32'], allowed_referers: ['*.example.com/*', 'https://partner.test/app/*'] });
    // Read back as stored, not from the key index's copy.
    expect(running.context.users.get(user!.id)?.settings).toMatchObject({ allowed_ips: ['192.0.2.0/24', '2001:db8::/32'] });
  });

  it('shows the saved lists one per line, saves edits, and saves empty lists when cleared', async () => {
    const { user } = running.context.users.create(
      apiUserInput({ email: 'edit@example.com', settings: { rate_limit_mode: null, rate_limits: [], allowed_ips: ['10.0.0.0/8', '203.0.113.7'], allowed_referers: ['*.example.com/*'] } }),
      'test',
    );
    const page = await client.get(`/admin/api_users/${user.id}`);
    expect(textareaOf(page.body, IPS)).toBe('10.0.0.0/8\n203.0.113.7');
    expect(textareaOf(page.body, REFERERS)).toBe('*.example.com/*');

    const edit = (ips: string, referers: string) => client.post(`/admin/api_users/${user.id}`, { ...NAMES, email: 'edit@example.com', [IPS]: ips, [REFERERS]: referers });
    expect((await edit('192.0.2.0/24', 'https://app.example.org/*\n*.example.net/*')).statusCode).toBe(303);
    expect(running.context.users.get(user.id)?.settings).toMatchObject({ allowed_ips: ['192.0.2.0/24'], allowed_referers: ['https://app.example.org/*', '*.example.net/*'] });
    expect(textareaOf((await client.get(`/admin/api_users/${user.id}`)).body, REFERERS)).toBe('https://app.example.org/*\n*.example.net/*');

    expect((await edit('', '\n')).statusCode).toBe(303);
    expect(running.context.users.get(user.id)?.settings).toMatchObject({ allowed_ips: [], allowed_referers: [] });
  });

  it('shows a bad IP entry next to the field and in the summary, keeps what was typed, and saves nothing', async () => {
    const typed = { ...NAMES, first_name: 'Typed', [IPS]: '192.0.2.0/24\nlocalhost', [REFERERS]: '*.example.com/*' };
    await client.get('/admin/api_users/new');
    const refused = await client.post('/admin/api_users', typed);
    expect(refused.statusCode).toBe(422);
    const message = 'contains "localhost", which is not an IP address or CIDR range';
    expect(textOf(refused.body)).toContain(`Restrict Access to IPs ${message}`);
    expect(refused.body).toMatch(/<textarea id="f-settings-allowed_ips"[^>]*aria-invalid="true"[^>]*>192\.0\.2\.0\/24\nlocalhost<\/textarea>\s*<small id="f-settings-allowed_ips-error" class="field-error">[^<]*localhost/);
    expect(textareaOf(refused.body, REFERERS)).toBe('*.example.com/*');
    expect(refused.body).toContain('value="Typed"');
    expect(running.context.users.list().total).toBe(0);

    // On edit too: the saved lists stay as they were.
    const { user } = running.context.users.create(apiUserInput({ email: 'kept@example.com' }), 'test');
    await client.get(`/admin/api_users/${user.id}`);
    const refusedEdit = await client.post(`/admin/api_users/${user.id}`, { ...typed, email: 'kept@example.com', [IPS]: '10.0.0.0/33' });
    expect(refusedEdit.statusCode).toBe(422);
    expect(textareaOf(refusedEdit.body, IPS)).toBe('10.0.0.0/33');
    expect(running.context.users.get(user.id)).toMatchObject({ first_name: 'Test', settings: { allowed_ips: [], allowed_referers: [] } });
  });
});

describe('a key restricted through the form, at the proxy', () => {
  let fx: ProxyFixture;
  beforeAll(async () => {
    fx = await startProxyFixture();
    await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/keyed/', backend_prefix: '/backend/' }] }));
  });
  afterAll(() => fx.close());

  it('is refused from 127.0.0.1 and admitted for a client in the range named by the trusted loopback proxy', async () => {
    await createAdmin(fx.gw.context);
    const client = new AdminClient(fx.gw.app);
    await client.signIn();
    const { page, apiKey } = await addThroughForm(client, fx.gw.context.keyIndex, { [IPS]: '192.0.2.0/24' });
    expect(page.statusCode).toBe(201);

    const refused = await send(fx.gw.url, '/keyed/a', { headers: { 'X-Api-Key': apiKey } });
    expect(refused.status).toBe(403);
    expect(errorCode(refused)).toBe('API_KEY_UNAUTHORIZED');
    const admitted = await send(fx.gw.url, '/keyed/a', { headers: { 'X-Api-Key': apiKey, 'X-Forwarded-For': '192.0.2.7' } });
    expect(admitted.status).toBe(200);
  });
});
