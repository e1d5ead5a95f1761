// API Umbrella's (Devise's) sign-in tracking of admins: each web sign-in
// moves the current time and client IP to last_sign_in_*, records its own
// and counts one, as the admin API then answers them.
import { afterEach, describe, expect, it } from 'vitest';
import { formatTime } from '../../src/lib/time-format.js';
import { callAdminApi } from '../helpers/admin-api.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { AdminClient, createAdmin, PASSWORD, startAdminApp, textOf, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp;
afterEach(() => running.close());

/** The admin's sign-in fields as the admin API answers them (read with their own token). */
async function signIns(id: string, token: string) {
  const { admin } = (await callAdminApi(running.app, token, 'GET', `/admins/${id}`)).body;
  const { sign_in_count, current_sign_in_at, current_sign_in_ip, last_sign_in_at, last_sign_in_ip } = admin;
  return { sign_in_count, current_sign_in_at, current_sign_in_ip, last_sign_in_at, last_sign_in_ip };
}

describe('sign-in tracking', () => {
  it('records each sign-in with its client IP, keeps the one before as the last, and counts them; a failed one changes nothing', async () => {
    const { logger, lines } = capturingLogger();
    running = await startAdminApp({}, { logger });
    const admin = await createAdmin(running.context);
    const token = running.context.admins.regenerateToken(admin.id)!;
    const never = { sign_in_count: 0, current_sign_in_at: null, current_sign_in_ip: null, last_sign_in_at: null, last_sign_in_ip: null };
    expect(await signIns(admin.id, token)).toEqual(never);

    expect((await new AdminClient(running.app, '192.0.2.10').signIn()).statusCode).toBe(303);
    const first = await signIns(admin.id, token);
    // As Devise's: the first sign-in is the last one too.
    expect(first).toEqual({ sign_in_count: 1, current_sign_in_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), current_sign_in_ip: '192.0.2.10', last_sign_in_at: first.current_sign_in_at, last_sign_in_ip: '192.0.2.10' });

    expect((await new AdminClient(running.app, '192.0.2.30').signIn('ops@example.com', `${PASSWORD}!`)).statusCode).toBe(401);
    expect(await signIns(admin.id, token)).toEqual(first);

    expect((await new AdminClient(running.app, '2001:db8::20').signIn()).statusCode).toBe(303);
    const second = await signIns(admin.id, token);
    expect(second).toMatchObject({ sign_in_count: 2, current_sign_in_ip: '2001:db8::20', last_sign_in_at: first.current_sign_in_at, last_sign_in_ip: '192.0.2.10' });
    expect(second.current_sign_in_at >= first.current_sign_in_at).toBe(true);
    // Personal data: kept in the admin's record, never logged.
    for (const ip of ['192.0.2.10', '192.0.2.30', '2001:db8::20']) expect(JSON.stringify(lines)).not.toContain(ip);
  });

  it("counts the first admin's account creation as their first sign-in, from its client IP", async () => {
    running = await startAdminApp();
    const client = new AdminClient(running.app, '198.51.100.7');
    await client.get('/admin/setup');
    expect((await client.post('/admin/setup', { email: 'ops@example.com', password: PASSWORD, password_confirmation: PASSWORD })).statusCode).toBe(303);
    expect(running.context.admins.findByEmail('ops@example.com')).toMatchObject({ sign_in_count: 1, current_sign_in_ip: '198.51.100.7', last_sign_in_ip: '198.51.100.7' });
  });

  it("shows each admin's latest sign-in on Admin Accounts", async () => {
    running = await startAdminApp();
    await createAdmin(running.context);
    const client = new AdminClient(running.app);
    await client.signIn();
    const latest = running.context.admins.findByEmail('ops@example.com')!.current_sign_in_at;
    const page = (await client.get('/admin/admins')).body;
    const headers = [...page.matchAll(/<th>([^<]*)<\/th>/g)].map((match) => match[1]);
    const row = /<tr>\s*<td>ops@example\.com[\s\S]*?<\/tr>/.exec(page)![0];
    const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((match) => textOf(match[1]!).trim());
    expect(cells[headers.indexOf('Last sign-in')]).toBe(formatTime(latest));
  });

  it('orders the admin list by current_sign_in_at, the latest sign-in, as API Umbrella does', async () => {
    running = await startAdminApp();
    const admin = await createAdmin(running.context);
    const token = running.context.admins.regenerateToken(admin.id)!;
    const never = await createAdmin(running.context, 'never@example.com');
    await new AdminClient(running.app).signIn();
    const order = (dir: string) => `/admins?columns[0][data]=current_sign_in_at&order[0][column]=0&order[0][dir]=${dir}`;
    const emails = async (dir: string) => ((await callAdminApi(running.app, token, 'GET', order(dir))).body.data as { email: string }[]).map((row) => row.email);
    expect(await emails('asc')).toEqual([never.email, admin.email]);
    expect(await emails('desc')).toEqual([admin.email, never.email]);
  });
});
