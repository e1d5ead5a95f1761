import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiUserInput } from '../../src/api-users/model.js';
import { createScopedAdmin, SCOPED_PASSWORD } from '../helpers/scoped-admin.js';
import { draftBackend } from '../helpers/scoped-backends.js';
import { apiUserInput } from '../helpers/users.js';
import { AdminClient, expectTwoPagesPager, startSignedIn, textOf, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp;
let client: AdminClient;

beforeEach(async () => {
  ({ running, client } = await startSignedIn());
});
afterEach(() => running.close());

function addUser(email: string, overrides: Partial<ApiUserInput> = {}) {
  return running.context.users.create(apiUserInput({ email, first_name: 'Ada', last_name: 'Lovelace', ...overrides }), 'test');
}

/** The emails the list at `url` shows, in its order. */
async function listedEmails(url: string): Promise<string[]> {
  const page = await client.get(url);
  expect(page.statusCode).toBe(200);
  return [...page.body.matchAll(/<td><a href="\/admin\/api_users\/[^"]+">([^<]+)<\/a><\/td>/g)].map((match) => match[1]!);
}

/** Each column header: its text, where its link leads (null: no link) and its aria-sort. */
function headersOf(html: string): [string, string | null, string][] {
  return [...html.matchAll(/<th((?:\s[^>]*)?)>(?:<a href="([^"]+)">)?([^<]+)/g)].map((match) => [match[3]!, match[2]?.replaceAll('&amp;', '&') ?? null, match[1]!.trim()]);
}

describe('API Users', () => {
  it('starts with an empty state that says what to do next', async () => {
    const text = textOf((await client.get('/admin/api_users')).body);
    expect(text).toContain('No API users yet');
    expect(text).toContain('Add API User');
  });

  it("lists API Umbrella's columns (email, first and last name, purpose, created, registration source, key preview), then roles and status; searches; pages by 25", async () => {
    for (let n = 0; n < 30; n++) addUser(`user${String(n).padStart(2, '0')}@example.com`, { roles: n === 0 ? ['beta'] : [] });
    const { user: special } = addUser('needle@example.org', { enabled: false, use_description: 'Maps', registration_source: 'web' });
    const first = textOf((await client.get('/admin/api_users')).body);
    expect(first).toContain('Email First Name Last Name Purpose Created ▼ Registration Source API Key Roles Status');
    expect(first).toContain('Showing 1–25 of 31');
    expect(first).toMatch(/needle@example\.org Ada Lovelace Maps \d{4}-\d\d-\d\d \d\d:\d\d UTC web \S{6}\.\.\. Disabled/);
    const second = textOf((await client.get('/admin/api_users?page=2')).body);
    expect(second).toContain('Showing 26–31 of 31');
    expect(second).toMatch(/user00@example\.com Ada Lovelace \d{4}-\d\d-\d\d \d\d:\d\d UTC test \S{6}\.\.\. beta Enabled/);
    const found = textOf((await client.get('/admin/api_users?search=needle')).body);
    expect(found).toContain('Showing 1–1 of 1');
    expect(found).toContain(special.api_key_preview);
    expect(textOf((await client.get('/admin/api_users?search=nothing-like-this')).body)).toContain('No API users match “nothing-like-this”');
  });

  it('sorts on the columns API Umbrella sorts on, either way, ties and NULLs as the admin API sorts them', async () => {
    addUser('b@example.com', { first_name: 'Bea', last_name: 'Zed', use_description: 'beta', registration_source: 'web' });
    addUser('a@example.com', { first_name: 'cy', last_name: 'Young', use_description: 'Alpha', registration_source: 'api' });
    addUser('c@example.com', { first_name: 'Al', last_name: 'xu', use_description: null, registration_source: 'cli' });
    const expected: Record<string, string[]> = {
      email: ['a', 'b', 'c'],
      // Ignoring case, as the indexes of migration 021 hold them.
      first_name: ['c', 'b', 'a'],
      last_name: ['c', 'a', 'b'],
      // No purpose comes first.
      use_description: ['c', 'a', 'b'],
      registration_source: ['a', 'c', 'b'],
    };
    for (const [column, letters] of Object.entries(expected)) {
      expect(await listedEmails(`/admin/api_users?order=${column}:asc`), column).toEqual(letters.map((letter) => `${letter}@example.com`));
      expect(await listedEmails(`/admin/api_users?order=${column}:desc`), column).toEqual(letters.map((letter) => `${letter}@example.com`).reverse());
    }
  });

  it('links each sortable header to its order, flipping the current one, keeping the search and status; the API key does not sort', async () => {
    addUser('one@example.com');
    const page = (await client.get('/admin/api_users?search=example&status=enabled&order=first_name:asc')).body;
    expect(headersOf(page)).toEqual([
      ['Email', '/admin/api_users?search=example&status=enabled&order=email%3Aasc', ''],
      ['First Name ▲', '/admin/api_users?search=example&status=enabled&order=first_name%3Adesc', 'aria-sort="ascending"'],
      ['Last Name', '/admin/api_users?search=example&status=enabled&order=last_name%3Aasc', ''],
      ['Purpose', '/admin/api_users?search=example&status=enabled&order=use_description%3Aasc', ''],
      // Times newest first.
      ['Created', '/admin/api_users?search=example&status=enabled&order=created_at%3Adesc', ''],
      ['Registration Source', '/admin/api_users?search=example&status=enabled&order=registration_source%3Aasc', ''],
      ['API Key', null, ''],
      ['Roles', null, ''],
      ['Status', null, ''],
    ]);
    // A new search keeps the order.
    expect(page).toContain('<input type="hidden" name="order" value="first_name:asc">');
    // Without an order the list is newest first, marked so; an order it does not know (an old link) is that too, not an error.
    for (const url of ['/admin/api_users', '/admin/api_users?order=api_key_preview:asc']) {
      const plain = await client.get(url);
      expect(plain.statusCode).toBe(200);
      expect(headersOf(plain.body)[4]).toEqual(['Created ▼', '/admin/api_users?order=created_at%3Aasc', 'aria-sort="descending"']);
      expect(plain.body).not.toContain('name="order"');
    }
    // Keys about to end are listed soonest first: no column is the order.
    expect(headersOf((await client.get('/admin/api_users?status=expiring')).body).filter(([, , sort]) => sort !== '')).toEqual([]);
  });

  it('keeps the order in the pager links', async () => {
    for (let n = 0; n < 30; n++) addUser(`user${String(n).padStart(2, '0')}@example.com`);
    await expectTwoPagesPager(client, '/admin/api_users', 'order=email%3Adesc');
    expect((await listedEmails('/admin/api_users?page=2&order=email%3Adesc')).at(-1)).toBe('user00@example.com');
  });

  it('shortens a long purpose in its cell, the whole of it in the cell\'s title', async () => {
    const purpose = `Weather for farms.\nWe poll ${'every station '.repeat(20)}hourly.`;
    addUser('long@example.com', { use_description: purpose });
    const page = (await client.get('/admin/api_users')).body;
    const cell = /<td title="([^"]*)">([^<]*)<\/td>/.exec(page)!;
    expect(cell[1]).toBe(purpose);
    expect(cell[2]).toBe('Weather for farms. We poll every station every station ever…');
    expect([...cell[2]!]).toHaveLength(60);
  });

  it('shows Previous on the first page and Next on the last as text, not as links to pages that do not exist', async () => {
    for (let n = 0; n < 30; n++) addUser(`user${n}@example.com`);
    await expectTwoPagesPager(client, '/admin/api_users');
  });

  it('shows the last page for a page past the end, not "No API users yet"', async () => {
    for (let n = 0; n < 27; n++) addUser(`user${n}@example.com`);
    const beyond = textOf((await client.get('/admin/api_users?page=9')).body);
    expect(beyond).not.toContain('No API users yet');
    expect(beyond).toContain('Showing 26–27 of 27');
  });

  it('shows the address, origin, referer and user agent a user was created from, escaped', async () => {
    const { user } = running.context.users.create(apiUserInput({ email: 'from@example.com' }), null, {
      registration_ip: '203.0.113.8',
      registration_user_agent: '<script>alert(1)</script>',
      registration_referer: 'https://example.com/signup',
      registration_origin: 'https://example.com',
    });
    const page = (await client.get(`/admin/api_users/${user.id}`)).body;
    expect(textOf(page)).toContain('Created from 203.0.113.8 · origin https://example.com · referer https://example.com/signup · <script>alert(1)</script>');
    expect(page).not.toContain('<script>alert(1)');
    const plain = addUser('plain@example.com').user;
    expect(textOf((await client.get(`/admin/api_users/${plain.id}`)).body)).not.toContain('Created from');
  });

  it('adds an API user and shows the new key once', async () => {
    await client.get('/admin/api_users/new');
    const created = await client.post('/admin/api_users', { email: 'dev@example.com', first_name: 'Dana', last_name: 'Dev', roles: 'beta, write', enabled: '1' });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const key = /id="api-key"[^>]*value="([A-Za-z0-9]{40})"/.exec(created.body)?.[1];
    expect(key).toBeDefined();
    expect(textOf(created.body)).toContain('It is shown only this once');
    const record = running.context.keyIndex.find(key!);
    expect(record?.user).toMatchObject({ email: 'dev@example.com', roles: ['beta', 'write'], enabled: true });
    // Nowhere else: not on the user's page.
    expect((await client.get(`/admin/api_users/${record!.user.id}`)).body).not.toContain(key);
  });

  it('offers Email verified, ticked for a new user, and keeps what the admin sets', async () => {
    const form = await client.get('/admin/api_users/new');
    expect(form.body).toMatch(/<input[^>]*name="email_verified"[^>]*checked/);
    await client.post('/admin/api_users', { email: 'ticked@example.com', first_name: 'Tia', last_name: 'Ticked', enabled: '1', email_verified: '1' });
    const user = running.context.users.list({ search: 'ticked@example.com' }).users[0]!;
    expect(user.email_verified).toBe(true);
    await client.get(`/admin/api_users/${user.id}`);
    await client.post(`/admin/api_users/${user.id}`, { email: 'ticked@example.com', first_name: 'Tia', last_name: 'Ticked', enabled: '1' });
    expect(running.context.users.get(user.id)!.email_verified).toBe(false);
  });

  it('offers Throttle by IP, unticked for a new user, and keeps what the admin sets', async () => {
    const form = await client.get('/admin/api_users/new');
    expect(form.body).toMatch(/<input[^>]*name="throttle_by_ip"/);
    expect(form.body).not.toMatch(/<input[^>]*name="throttle_by_ip"[^>]*checked/);
    await client.post('/admin/api_users', { email: 'shared@example.com', first_name: 'Demo', last_name: 'Key', enabled: '1', throttle_by_ip: '1' });
    const user = running.context.users.list({ search: 'shared@example.com' }).users[0]!;
    expect(user.throttle_by_ip).toBe(true);
    expect((await client.get(`/admin/api_users/${user.id}`)).body).toMatch(/<input[^>]*name="throttle_by_ip"[^>]*checked/);
    await client.post(`/admin/api_users/${user.id}`, { email: 'shared@example.com', first_name: 'Demo', last_name: 'Key', enabled: '1' });
    expect(running.context.users.get(user.id)!.throttle_by_ip).toBe(false);
  });

  it('shows signup\'s messages next to the fields, with the values kept', async () => {
    await client.get('/admin/api_users/new');
    const invalid = await client.post('/admin/api_users', { email: 'not-an-email', first_name: '', last_name: 'Dev', enabled: '1' });
    expect(invalid.statusCode).toBe(422);
    const text = textOf(invalid.body);
    expect(text).toContain('Provide a valid email address.');
    expect(text).toContain('Provide your first name.');
    expect(invalid.body).toContain('value="not-an-email"');
  });

  it('names the roles in use under Roles, those users hold and those backends require, in both forms', async () => {
    addUser('holder@example.com', { roles: ['test-user-role'] });
    draftBackend(running.context, 'Roles', ['/roles/'], ['test-api-role']);
    for (const page of ['/admin/api_users/new', '/admin/apis/new']) {
      expect(textOf((await client.get(page)).body), page).toContain('In use: test-api-role, test-user-role.');
    }
  });

  it('edits roles, enabled state and per-user rate limits', async () => {
    const { user, apiKey } = addUser('edit@example.com', { settings: { rate_limit_mode: null, rate_limits: [], allowed_ips: ['10.0.0.1'], allowed_referers: [] } });
    const page = await client.get(`/admin/api_users/${user.id}`);
    expect(page.body).toContain('value="edit@example.com"');
    const saved = await client.post(`/admin/api_users/${user.id}`, {
      email: 'edit@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      roles: 'gold',
      'settings[rate_limit_mode]': 'custom',
      'settings[rate_limits][0][duration_value]': '1',
      'settings[rate_limits][0][duration_unit]': 'hours',
      'settings[rate_limits][0][limit_by]': 'api_key',
      'settings[rate_limits][0][limit]': '5000',
    });
    expect(textOf((await client.follow(saved)).body)).toContain('Saved the API user edit@example.com.');
    expect(running.context.users.get(user.id)).toMatchObject({
      roles: ['gold'],
      enabled: false,
      settings: { rate_limit_mode: 'custom', rate_limits: [{ duration: 3_600_000, limit_by: 'api_key', limit: 5000, response_headers: false }], allowed_ips: ['10.0.0.1'] },
    });
    // Unchecking "Enabled" disables the key from the next request on.
    expect(running.context.keyIndex.find(apiKey)?.user.enabled).toBe(false);
  });

  it("refuses a rate limit row without a known unit (a tampered or stale form), keeping the stored limit: '100 per hour' was saved as 100 per millisecond", async () => {
    const hourly = { id: 'hourly', duration: 3_600_000, limit_by: 'api_key' as const, limit: 100, response_headers: false };
    const { user } = addUser('units@example.com', { settings: { rate_limit_mode: 'custom', rate_limits: [hourly], allowed_ips: [], allowed_referers: [] } });
    await client.get(`/admin/api_users/${user.id}`);
    const row = { 'settings[rate_limit_mode]': 'custom', 'settings[rate_limits][0][duration_value]': '1', 'settings[rate_limits][0][limit_by]': 'api_key', 'settings[rate_limits][0][limit]': '100' };
    const units: Record<string, string>[] = [{}, { 'settings[rate_limits][0][duration_unit]': 'fortnights' }];
    for (const unit of units) {
      const refused = await client.post(`/admin/api_users/${user.id}`, { email: 'units@example.com', first_name: 'Ada', last_name: 'Lovelace', enabled: '1', ...row, ...unit });
      expect(refused.statusCode).toBe(422);
      expect(textOf(refused.body)).toContain('must be one of the units listed');
    }
    expect(running.context.users.get(user.id)!.settings.rate_limits).toMatchObject([{ ...hourly, id: expect.any(String) }]);
  });

  it('records the signed-in admin (by id) as who created and last changed a user, and since when it is disabled', async () => {
    const admin = running.context.admins.findByEmail('ops@example.com')!;
    const byAdmin = { created_by: admin.id, creator: { username: 'ops@example.com' }, updated_by: admin.id, updater: { username: 'ops@example.com' } };
    await client.get('/admin/api_users/new');
    await client.post('/admin/api_users', { email: 'audited@example.com', first_name: 'Ada', last_name: 'Lovelace', enabled: '1' });
    const user = running.context.users.list({ search: 'audited@example.com' }).users[0]!;
    expect(user).toMatchObject({ ...byAdmin, disabled_at: null });

    // Unchecking "Enabled", on a user made elsewhere.
    const edited = addUser('edited@example.com').user;
    await client.get(`/admin/api_users/${edited.id}`);
    await client.post(`/admin/api_users/${edited.id}`, { email: 'edited@example.com', first_name: 'Ada', last_name: 'Lovelace' });
    const disabled = running.context.users.get(edited.id)!;
    expect(disabled).toMatchObject({ created_by: 'test', updated_by: admin.id, updater: { username: 'ops@example.com' }, disabled_at: disabled.updated_at });
    await client.post(`/admin/api_users/${edited.id}`, { email: 'edited@example.com', first_name: 'Ada', last_name: 'Lovelace', enabled: '1' });
    expect(running.context.users.get(edited.id)!.disabled_at).toBeNull();

    // A new key and the end of the previous one are changes by the admin too.
    for (const action of ['regenerate_key', 'end_previous_key']) {
      const other = addUser(`${action}@example.com`).user;
      await client.get(`/admin/api_users/${other.id}`);
      await client.post(`/admin/api_users/${other.id}/${action}`, { ...(action === 'regenerate_key' ? { previous_key_grace: '1h' } : {}), confirmed: '1' });
      expect(running.context.users.get(other.id), action).toMatchObject({ created_by: 'test', updated_by: admin.id, updater: { username: 'ops@example.com' } });
    }
  });

  it('lets one rate limit show in the headers, as API Umbrella\'s radio button does: a second ticked box is an error beside it, and nothing is saved', async () => {
    const { user } = addUser('headers@example.com');
    const limit = (index: number, unit: string, amount: string) => ({
      [`settings[rate_limits][${index}][duration_value]`]: '1',
      [`settings[rate_limits][${index}][duration_unit]`]: unit,
      [`settings[rate_limits][${index}][limit_by]`]: 'api_key',
      [`settings[rate_limits][${index}][limit]`]: amount,
      [`settings[rate_limits][${index}][response_headers]`]: '1',
    });
    const fields = { email: 'headers@example.com', first_name: 'Ada', last_name: 'Lovelace', enabled: '1', 'settings[rate_limit_mode]': 'custom', ...limit(0, 'minutes', '100'), ...limit(1, 'hours', '1000') };
    await client.get(`/admin/api_users/${user.id}`);
    const refused = await client.post(`/admin/api_users/${user.id}`, fields);
    expect(refused.statusCode).toBe(422);
    expect(textOf(refused.body)).toContain('only one rate limit can show in the headers');
    expect(running.context.users.get(user.id)!.settings.rate_limits).toEqual([]);
    const hourOnly = { ...fields, 'settings[rate_limits][0][response_headers]': '' };
    expect((await client.post(`/admin/api_users/${user.id}`, hourOnly)).statusCode).toBe(303);
    expect(running.context.users.get(user.id)!.settings.rate_limits.map((saved) => saved.response_headers)).toEqual([false, true]);
  });

  it('sets and shows a key expiry: its messages next to the field, Expired in the list once it has passed', async () => {
    const { user, apiKey } = addUser('ending@example.com');
    const form = { email: 'ending@example.com', first_name: 'Ada', last_name: 'Lovelace', enabled: '1' };
    await client.get(`/admin/api_users/${user.id}`);
    const invalid = await client.post(`/admin/api_users/${user.id}`, { ...form, expires_at: '2027-02-30' });
    expect(invalid.statusCode).toBe(422);
    expect(textOf(invalid.body)).toContain('Key Expires At must be a date and time such as 2026-01-31T00:00:00Z');
    expect(invalid.body).toContain('value="2027-02-30"');
    await client.post(`/admin/api_users/${user.id}`, { ...form, expires_at: '2999-01-31T08:00' });
    expect(running.context.users.get(user.id)!.expires_at).toBe('2999-01-31T08:00:00.000Z');
    expect(textOf((await client.get(`/admin/api_users/${user.id}`)).body)).toContain('expires 2999-01-31 08:00 UTC');
    expect(textOf((await client.get('/admin/api_users')).body)).toMatch(/ending@example\.com .* Enabled until 2999-01-31 08:00 UTC/);
    // A post without the field (not from this form) keeps the expiry.
    await client.post(`/admin/api_users/${user.id}`, form);
    expect(running.context.users.get(user.id)!.expires_at).toBe('2999-01-31T08:00:00.000Z');
    await client.post(`/admin/api_users/${user.id}`, { ...form, expires_at: '2001-01-01' });
    expect(textOf((await client.get('/admin/api_users')).body)).toMatch(/ending@example\.com .* Expired/);
    expect(running.context.keyIndex.find(apiKey)?.user.expires_at_ms).toBe(Date.UTC(2001, 0, 1));
  });

  it('shows only the keys of the chosen status, keeps it across pages, and says so when none are left', async () => {
    for (let n = 0; n < 27; n++) addUser(`ended${String(n).padStart(2, '0')}@example.com`, { expires_at: '2001-01-01T00:00:00.000Z' });
    addUser('working@example.com');
    const page = await client.get('/admin/api_users?status=expired');
    expect(page.body).toContain('<option value="expired" selected>Expired</option>');
    const text = textOf(page.body);
    expect(text).toContain('Showing 1–25 of 27');
    expect(text).not.toContain('working@example.com');
    expect(page.body).toContain('href="/admin/api_users?page=2&amp;status=expired"');
    const none = textOf((await client.get('/admin/api_users?status=disabled')).body);
    expect(none).toContain('No API users here');
    expect(none).toContain('Showing only: Disabled.');
    // An unknown status (an old link) shows everyone.
    expect(textOf((await client.get('/admin/api_users?status=gone')).body)).toContain('Showing 1–25 of 28');
  });

  it('regenerates the key: the new one is shown once and the old one stops working', async () => {
    const { user, apiKey } = addUser('rotate@example.com');
    await client.get(`/admin/api_users/${user.id}`);
    const response = await client.post(`/admin/api_users/${user.id}/regenerate_key`, { confirmed: '1' });
    expect(response.statusCode).toBe(200);
    const key = /id="api-key"[^>]*value="([A-Za-z0-9]{40})"/.exec(response.body)?.[1];
    expect(textOf(response.body)).toContain('The previous key no longer works.');
    expect(running.context.keyIndex.find(key!)?.user.id).toBe(user.id);
    expect(running.context.keyIndex.find(apiKey)).toBeNull();
  });

  it('regenerates with the current key working a chosen while longer, says until when, and ends it early', async () => {
    const { user, apiKey } = addUser('grace@example.com');
    const page = await client.get(`/admin/api_users/${user.id}`);
    expect(page.body).toContain('<option value="1d">Current key works 1 more day</option>');
    const before = Date.now();
    const response = await client.post(`/admin/api_users/${user.id}/regenerate_key`, { previous_key_grace: '1d', confirmed: '1' });
    const until = running.context.users.get(user.id)!.previous_api_key_expires_at!;
    expect(Date.parse(until)).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(Date.parse(until)).toBeLessThanOrEqual(Date.now() + 86_400_000);
    expect(textOf(response.body)).toContain(`The previous key keeps working until ${until.slice(0, 16).replace('T', ' ')} UTC.`);
    expect(running.context.keyIndex.find(apiKey)?.user.expires_at_ms).toBe(Date.parse(until));
    expect(textOf((await client.get(`/admin/api_users/${user.id}`)).body)).toContain(`Previous key ${apiKey.slice(0, 6)}... works until`);
    const ended = await client.post(`/admin/api_users/${user.id}/end_previous_key`, { confirmed: '1' });
    expect(textOf((await client.follow(ended)).body)).toContain('The previous key of grace@example.com no longer works.');
    expect(running.context.keyIndex.find(apiKey)).toBeNull();
    await client.post(`/admin/api_users/${user.id}/regenerate_key`, { previous_key_grace: '1h', confirmed: '1' });
    const current = running.context.users.get(user.id)!.api_key_preview;
    const unknown = await client.post(`/admin/api_users/${user.id}/regenerate_key`, { previous_key_grace: '1y', confirmed: '1' });
    expect(unknown.statusCode).toBe(400);
    expect(running.context.users.get(user.id)!.api_key_preview).toBe(current);
  });

  it('deletes after a confirmation page: the key stops working and the user is gone from the list', async () => {
    const { user, apiKey } = addUser('leaving@example.com');
    expect((await client.get(`/admin/api_users/${user.id}`)).body).toContain(`href="/admin/api_users/${user.id}/delete"`);
    const confirm = await client.get(`/admin/api_users/${user.id}/delete`);
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body)).toContain('Delete “leaving@example.com”?');
    expect(textOf(confirm.body)).toContain('The requests already logged stay under Analytics');
    expect(running.context.keyIndex.find(apiKey)).not.toBeNull();
    const deleted = await client.post(`/admin/api_users/${user.id}/delete`);
    expect(deleted.statusCode).toBe(303);
    const list = textOf((await client.follow(deleted)).body);
    expect(list).toContain('Deleted the API user leaving@example.com. Its key no longer works.');
    expect(list).not.toContain('leaving@example.com Ada');
    expect(running.context.keyIndex.find(apiKey)).toBeNull();
    expect((await client.get(`/admin/api_users/${user.id}`)).statusCode).toBe(404);
    expect((await client.post(`/admin/api_users/${user.id}/delete`)).statusCode).toBe(404);
  });

  it('lets only superusers delete: an admin who manages users sees no Delete button and gets 403 pages', async () => {
    const { user, apiKey } = addUser('kept@example.com');
    await createScopedAdmin(running.context, { email: 'helper@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/' }], permissions: ['user_view', 'user_manage'] });
    const helper = new AdminClient(running.app);
    await helper.signIn('helper@example.com', SCOPED_PASSWORD);
    expect((await helper.get(`/admin/api_users/${user.id}`)).body).not.toContain(`/admin/api_users/${user.id}/delete`);
    const page = await helper.get(`/admin/api_users/${user.id}/delete`);
    expect(page.statusCode).toBe(403);
    expect(textOf(page.body)).toContain('Only superusers can delete API users; you can disable one instead.');
    expect((await helper.post(`/admin/api_users/${user.id}/delete`)).statusCode).toBe(403);
    expect(running.context.keyIndex.find(apiKey)).not.toBeNull();
  });

  it('renders values from API users as text, never as markup', async () => {
    const { user } = addUser('<script>alert(1)</script>@example.com', { first_name: '<script>alert(1)</script>', roles: ['<img src=x onerror=alert(1)>'] });
    for (const path of ['/admin/api_users', `/admin/api_users/${user.id}`, `/admin/api_users/${user.id}/delete`]) {
      const page = await client.get(path);
      expect(page.body).not.toContain('<script>alert(1)</script>');
      expect(page.body).not.toContain('<img src=x');
      expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(textOf(page.body)).toContain('<script>alert(1)</script>');
    }
  });

  it('answers an unknown id with a 404 page', async () => {
    expect((await client.get('/admin/api_users/nope')).statusCode).toBe(404);
  });
});
