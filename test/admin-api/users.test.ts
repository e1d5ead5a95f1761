import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createScopedAdmin } from '../helpers/scoped-admin.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

describe('/users', () => {
  it('lists users with paging and search, and shows only a key preview', async () => {
    const { apiKey } = await gw.createUser({ email: 'searchable@example.com', first_name: 'Sally' });
    await gw.createUser({ email: 'other@example.com' });
    const all = await gw.adminApi('GET', '/users?start=0&length=1');
    expect(all.body.recordsTotal).toBeGreaterThanOrEqual(2);
    expect(all.body.data).toHaveLength(1);
    const found = await gw.adminApi('GET', '/users.json?search=searchable');
    expect(found.body.data).toHaveLength(1);
    const user = found.body.data[0];
    expect(user.api_key_preview).toBe(`${apiKey.slice(0, 6)}...`);
    expect(JSON.stringify(found.body)).not.toContain(apiKey);
    expect(user).not.toHaveProperty('api_key');
    // DataTables' form, as API Umbrella's admin sends it, with its draw counter answered back.
    const datatables = await gw.adminApi('GET', '/users.json?draw=7&search%5Bvalue%5D=searchable&start=0&length=10');
    expect(datatables.body.data.map((found: { email: string }) => found.email)).toEqual(['searchable@example.com']);
    expect(datatables.body.draw).toBe(7);
  });

  it('treats LIKE wildcards in a search as plain characters', async () => {
    expect((await gw.adminApi('GET', '/users?search=%25')).body.data).toEqual([]);
  });

  it('reads and updates a user; enabled:false disables it at once for the key index', async () => {
    const { id, apiKey } = await gw.createUser({ email: 'toggle@example.com' });
    expect((await gw.adminApi('GET', `/users/${id}`)).body.user).toMatchObject({ email: 'toggle@example.com', throttle_by_ip: false });
    expect(gw.context.keyIndex.find(apiKey)?.user.enabled).toBe(true);

    const updated = await gw.adminApi('PUT', `/users/${id}`, { user: { enabled: false, roles: ['a', 'b'], throttle_by_ip: true } });
    expect(updated.status).toBe(200);
    expect(updated.body.user).toMatchObject({ enabled: false, roles: ['a', 'b'], email: 'toggle@example.com', throttle_by_ip: true });
    expect(gw.context.keyIndex.find(apiKey)?.user).toMatchObject({ enabled: false, throttle_by_ip: true });
  });

  it('updates a user from form fields, roles as numbered rows', async () => {
    const { id } = await gw.createUser({ email: 'form-roles@example.com', roles: ['old'] });
    const response = await fetch(`${gw.url}/api-umbrella/v1/users/${id}`, {
      method: 'PUT',
      headers: { 'X-Admin-Auth-Token': gw.adminToken, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'user[roles][0]=new&user[roles][1]=other',
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { user: { roles: string[] } }).user.roles).toEqual(['new', 'other']);
  });

  it('sets, normalises and clears expires_at, keeps it when an update leaves it out, and refuses what is no instant', async () => {
    const created = await gw.adminApi('POST', '/users', { user: { email: 'expiring@example.com', first_name: 'E', last_name: 'X', expires_at: '2027-01-31' } });
    expect(created.status).toBe(201);
    expect(created.body.user.expires_at).toBe('2027-01-31T00:00:00.000Z');
    const { id } = created.body.user;
    const put = async (user: Record<string, unknown>) => gw.adminApi('PUT', `/users/${id}`, { user });
    expect((await put({ expires_at: '2027-01-31T12:30:00+01:00' })).body.user.expires_at).toBe('2027-01-31T11:30:00.000Z');
    expect((await put({ first_name: 'Eve' })).body.user.expires_at).toBe('2027-01-31T11:30:00.000Z');
    // A bare number is milliseconds, from 12 digits on: 2027 is a mistyped year, not a moment of 1970; nothing after year 9999.
    for (const value of ['2027-02-30', 'next week', '2027-01-31T25:00:00Z', 2027, 253_402_300_800_000]) {
      const refused = await put({ expires_at: value });
      expect(refused.status, String(value)).toBe(422);
      expect(refused.body.errors, String(value)).toEqual([
        { code: 'INVALID_INPUT', field: 'expires_at', message: 'must be a date and time such as 2026-01-31T00:00:00Z', full_message: 'Expires at: must be a date and time such as 2026-01-31T00:00:00Z' },
      ]);
    }
    expect((await gw.adminApi('GET', `/users/${id}`)).body.user.expires_at).toBe('2027-01-31T11:30:00.000Z');
    // Dates before 1973 are no mistake when written as dates, nor milliseconds inside {"$date": …}.
    expect((await put({ expires_at: '1972-06-01' })).body.user.expires_at).toBe('1972-06-01T00:00:00.000Z');
    expect((await put({ expires_at: { $date: 0 } })).body.user.expires_at).toBe('1970-01-01T00:00:00.000Z');
    expect((await put({ expires_at: '' })).body.user.expires_at).toBeNull();
  });

  it('lists by key status: working, expiring within 30 days (soonest first), expired, disabled; 400 for another', async () => {
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    await gw.createUser({ email: 'status-plain@example.org' });
    await gw.createUser({ email: 'status-later@example.org', expires_at: inDays(90) });
    await gw.createUser({ email: 'status-soon@example.org', expires_at: inDays(10) });
    await gw.createUser({ email: 'status-sooner@example.org', expires_at: inDays(2) });
    await gw.createUser({ email: 'status-ended@example.org', expires_at: inDays(-1) });
    await gw.createUser({ email: 'status-off@example.org', enabled: false, expires_at: inDays(3) });
    const emails = async (status: string) =>
      ((await gw.adminApi('GET', `/users?search=status-&status=${status}`)).body.data as { email: string }[]).map((user) => user.email).sort();
    expect(await emails('enabled')).toEqual(['status-later@example.org', 'status-plain@example.org', 'status-soon@example.org', 'status-sooner@example.org']);
    expect(((await gw.adminApi('GET', '/users?search=status-&status=expiring')).body.data as { email: string }[]).map((user) => user.email)).toEqual([
      'status-sooner@example.org',
      'status-soon@example.org',
    ]);
    expect(await emails('expired')).toEqual(['status-ended@example.org']);
    expect(await emails('disabled')).toEqual(['status-off@example.org']);
    const bogus = await gw.adminApi('GET', '/users?status=gone');
    expect(bogus.status).toBe(400);
    expect(bogus.body).toEqual({ error: 'status must be one of enabled, disabled, expired, expiring' });
    expect((await gw.adminApi('GET', '/users?status=expired&status=enabled')).status).toBe(400);
  });

  it('answers 422 in the signup error shape and 404 for unknown users', async () => {
    const { id } = await gw.createUser();
    const invalid = await gw.adminApi('PUT', `/users/${id}`, { user: { email: 'not-an-email', first_name: '<b>', email_verified: 'maybe' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual(
      expect.arrayContaining([
        { code: 'INVALID_INPUT', field: 'email', message: 'Provide a valid email address.', full_message: 'Provide a valid email address.' },
        { code: 'INVALID_INPUT', field: 'first_name', message: 'is invalid', full_message: 'First name: is invalid' },
        { code: 'INVALID_INPUT', field: 'email_verified', message: 'must be true or false', full_message: 'Email verified: must be true or false' },
      ]),
    );
    expect((await gw.adminApi('PUT', `/users/${id}`, { user: { email_verified: null } })).status).toBe(422);
    const throttled = await gw.adminApi('PUT', `/users/${id}`, { user: { throttle_by_ip: 'maybe' } });
    expect([throttled.status, throttled.body.errors[0].field]).toEqual([422, 'throttle_by_ip']);
    // A mistyped "disable" must not turn a disabled key back on.
    expect((await gw.adminApi('PUT', `/users/${id}`, { user: { enabled: false } })).status).toBe(200);
    for (const enabled of ['no', null, [], {}]) {
      const refused = await gw.adminApi('PUT', `/users/${id}`, { user: { enabled } });
      expect([refused.status, refused.body.errors]).toEqual([422, [{ code: 'INVALID_INPUT', field: 'enabled', message: 'must be true or false', full_message: 'Enabled: must be true or false' }]]);
    }
    expect((await gw.adminApi('GET', `/users/${id}`)).body.user.enabled).toBe(false);
    const twice = { rate_limit_mode: 'custom', rate_limits: [{ duration: 5000, limit_by: 'ip', limit: 10 }, { duration: 5000, limit_by: 'ip', limit: 20 }] };
    const sameWindow = await gw.adminApi('PUT', `/users/${id}`, { user: { settings: twice } });
    expect([sameWindow.status, sameWindow.body.errors?.[0]?.field]).toEqual([422, 'settings.rate_limits[1].duration']);
    expect((await gw.adminApi('GET', '/users/nope')).status).toBe(404);
    expect((await gw.adminApi('PUT', '/users/nope', { user: {} })).status).toBe(404);
    expect((await gw.adminApi('POST', '/users/nope/regenerate_key')).status).toBe(404);
  });

  // Read as empty, a wrong type would clear a user's roles or allowed IPs at once (users are live, with no publish step).
  it('refuses a field of the wrong type on that field, keeping what is stored, and takes lists as form rows', async () => {
    const { id } = await gw.createUser({ email: 'typed@example.com', first_name: 'Ty', roles: ['r1'], website: 'https://example.com', settings: { allowed_ips: ['10.0.0.1'] } });
    const refusals: [Record<string, unknown>, string, string][] = [
      [{ roles: 12345 }, 'roles', 'must be a list of text values'],
      [{ roles: { role: 'x' } }, 'roles', 'must be a list of text values'],
      [{ roles: ['r2', 5] }, 'roles[1]', 'must be text'],
      [{ settings: { allowed_ips: 12345 } }, 'settings.allowed_ips', 'must be a list of text values'],
      [{ settings: { allowed_referers: true } }, 'settings.allowed_referers', 'must be a list of text values'],
      [{ website: 12345 }, 'website', 'must be text'],
      [{ website: { a: 1 } }, 'website', 'must be text'],
      [{ use_description: ['a'] }, 'use_description', 'must be text'],
      [{ registration_source: 12345 }, 'registration_source', 'must be text'],
      [{ first_name: 12345 }, 'first_name', 'must be text'],
      [{ email: ['typed@example.com'] }, 'email', 'must be text'],
    ];
    for (const [change, field, message] of refusals) {
      const refused = await gw.adminApi('PUT', `/users/${id}`, { user: change });
      expect([refused.status, refused.body.errors], JSON.stringify(change)).toEqual([422, [{ code: 'INVALID_INPUT', field, message, full_message: expect.any(String) }]]);
    }
    expect((await gw.adminApi('GET', `/users/${id}`)).body.user).toMatchObject({ first_name: 'Ty', roles: ['r1'], website: 'https://example.com', settings: { allowed_ips: ['10.0.0.1'] } });

    const rows = await gw.adminApi('PUT', `/users/${id}`, { user: { roles: { 0: 'r9', 1: 'r8' }, settings: { allowed_ips: { 0: '10.1.1.1' } } } });
    expect([rows.status, rows.body.user.roles, rows.body.user.settings.allowed_ips]).toEqual([200, ['r9', 'r8'], ['10.1.1.1']]);
    const text = await gw.adminApi('PUT', `/users/${id}`, { user: { roles: 'a, b', website: null } });
    expect([text.status, text.body.user.roles, text.body.user.website]).toEqual([200, ['a', 'b'], null]);
  });

  it('regenerates a key: the new one is returned once and works, the old one stops at once', async () => {
    const { id, apiKey } = await gw.createUser();
    const response = await gw.adminApi('POST', `/users/${id}/regenerate_key`);
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const newKey = response.body.user.api_key as string;
    expect(newKey).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(newKey).not.toBe(apiKey);
    expect(gw.context.keyIndex.find(apiKey)).toBeNull();
    expect(gw.context.keyIndex.find(newKey)?.user.id).toBe(id);
    expect((await gw.adminApi('GET', `/users/${id}`)).body.user).not.toHaveProperty('api_key');

    const again = await gw.adminApi('POST', `/users/${id}/regenerate_key.json`);
    expect(again.status).toBe(200);
    expect(gw.context.keyIndex.find(again.body.user.api_key as string)?.user.id).toBe(id);
    expect(gw.context.keyIndex.find(newKey)).toBeNull();
  });
});

describe('DELETE /users/:id', () => {
  it('deletes the user: its key stops at once, its details go, its id stays only as a deletion', async () => {
    const { id, apiKey } = await gw.createUser({ email: 'leaving@example.com', first_name: 'Lea' });
    const response = await gw.adminApi('DELETE', `/users/${id}`);
    expect(response.status).toBe(204);
    expect(gw.context.keyIndex.find(apiKey)).toBeNull();
    expect((await gw.adminApi('GET', `/users/${id}`)).status).toBe(404);
    expect((await gw.adminApi('GET', '/users.json?search=leaving')).body.data).toEqual([]);
    expect(gw.context.db.prepare("SELECT count(*) AS n FROM api_users WHERE id = ? OR email = 'leaving@example.com'").get(id)).toEqual({ n: 0 });
    const adminEmail = gw.context.admins.findByToken(gw.adminToken)!.email;
    expect(gw.context.db.prepare('SELECT id, deleted_by FROM api_user_deletions WHERE id = ?').get(id)).toEqual({ id, deleted_by: adminEmail });
    expect((await gw.adminApi('DELETE', `/users/${id}`)).status).toBe(404);
    expect((await gw.adminApi('DELETE', '/users/nope')).status).toBe(404);
    const other = await gw.createUser();
    expect((await gw.adminApi('DELETE', `/users/${other.id}.json`)).status).toBe(204);
    expect(gw.context.keyIndex.find(other.apiKey)).toBeNull();
  });

  it('lets only superusers delete: the token of an admin who manages users gets 403 and the user stays', async () => {
    const { id, apiKey } = await gw.createUser();
    const { authToken } = await createScopedAdmin(gw.context, { email: 'helper@example.com', scopes: [{ host: 'api.example.com', path_prefix: '/' }], permissions: ['user_view', 'user_manage'] });
    const response = await request(`${gw.url}/api-umbrella/v1/users/${id}`, { method: 'DELETE', headers: { 'X-Admin-Auth-Token': authToken } });
    expect(response.statusCode).toBe(403);
    expect(await response.body.json()).toEqual({ errors: [{ code: 'FORBIDDEN', message: 'Only superusers can delete API users; disable one instead (enabled: false).' }] });
    expect(gw.context.keyIndex.find(apiKey)).not.toBeNull();
  });

  it('leaves no trace of the deleted details in the database file once the log is checkpointed', async () => {
    const { id } = await gw.createUser({ email: 'erase-me@example.com', first_name: 'Quirinus', last_name: 'Zebedee' });
    gw.context.db.pragma('wal_checkpoint(TRUNCATE)');
    const file = join(gw.context.config.data_dir, 'parasol.db');
    expect(readFileSync(file).toString('latin1')).toContain('erase-me@example.com');
    expect((await gw.adminApi('DELETE', `/users/${id}`)).status).toBe(204);
    gw.context.db.pragma('wal_checkpoint(TRUNCATE)');
    const contents = readFileSync(file).toString('latin1');
    for (const detail of ['erase-me@example.com', 'Quirinus', 'Zebedee']) expect(contents.includes(detail), detail).toBe(false);
  });
});

describe('keys at rest', () => {
  it('never stores a clear API key or admin token in the database files', async () => {
    const keys = await Promise.all([1, 2, 3].map(() => gw.createUser()));
    const regenerated = (await gw.adminApi('POST', `/users/${keys[0]!.id}/regenerate_key`)).body.user.api_key as string;
    gw.context.db.pragma('wal_checkpoint(TRUNCATE)');
    const dir = gw.context.config.data_dir;
    const files = readdirSync(dir).filter((file) => file.startsWith('parasol.db'));
    const contents = files.map((file) => readFileSync(join(dir, file)).toString('latin1')).join('');
    for (const secret of [...keys.map((k) => k.apiKey), regenerated, gw.adminToken]) {
      expect(contents.includes(secret), secret).toBe(false);
      expect(contents.includes(secret.slice(16)), secret).toBe(false);
    }
    // The lookup prefix of a live key is stored (that is how it is found); nothing after it is.
    expect(contents.includes(regenerated.slice(0, 16))).toBe(true);
  });

  it('rejects a key that shares its prefix with a valid key, and keys of the wrong length', async () => {
    const { apiKey } = await gw.createUser();
    const forged = apiKey.slice(0, 16) + 'x'.repeat(24);
    expect(gw.context.keyIndex.find(forged)).toBeNull();
    expect(gw.context.keyIndex.find(apiKey.slice(0, 3))).toBeNull();
    expect(gw.context.keyIndex.find(`${apiKey}${'y'.repeat(21)}`)).toBeNull();
    expect(gw.context.keyIndex.find(apiKey)).not.toBeNull();
  });
});
