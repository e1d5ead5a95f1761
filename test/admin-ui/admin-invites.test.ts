// Invites for new admins, as API Umbrella's admin sends them (its
// test/admin_ui/login/test_invite.rb): "Send invite email" on Add Admin,
// "Resend invite email" on Edit Admin, and the link that lets the admin set
// their password and signs them in. A running Parasol over HTTP, a real SMTP
// server, the store in a SQLite file.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startLocalSmtp, type LocalSmtp, type ReceivedMail } from '../mailer/local-smtp.js';
import { checkbox, textOf } from './helpers/admin-client.js';
import { HttpAdminClient } from './helpers/http-client.js';

const PASSWORD = 'correct horse battery staple';
const THEIR_PASSWORD = 'password123456';
const DAY = 24 * 3_600_000;

let gw: TestGateway | null = null;
let smtp: LocalSmtp | null = null;
afterEach(async () => {
  await gw?.stop();
  await smtp?.close();
  gw = smtp = null;
});

/** A Parasol (with a mailer unless `mailer` is false) and a browser signed in as the superuser ops@example.com. */
async function start(options: { mailer?: boolean; config?: Record<string, unknown>; clock?: ManualClock } = {}) {
  smtp = await startLocalSmtp();
  const mailer = options.mailer === false ? {} : { mailer: { from: 'admin@weather.example', smtp: { host: '127.0.0.1', port: smtp.port } } };
  gw = await startTestGateway({ site_name: 'Weather API', ...mailer, ...options.config }, options.clock === undefined ? {} : { clock: options.clock });
  await gw.context.admins.create({ email: 'ops@example.com', password: PASSWORD, superuser: true });
  const running = gw;
  const browser = () => new HttpAdminClient(running.url);
  const ops = browser();
  expect((await ops.signIn('ops@example.com', PASSWORD)).location).toBe('/admin/');
  return { gw: running, smtp, ops, browser };
}

/** Add Admin as the form posts it: a superuser, no password unless given. */
async function addAdmin(browser: HttpAdminClient, fields: Record<string, string>) {
  await browser.get('/admin/admins/new');
  return browser.post('/admin/admins', { name: '', notes: '', superuser: '1', enabled: '1', ...fields });
}

/** Edit Admin as the form posts it, for a superuser. */
async function editAdmin(browser: HttpAdminClient, id: string, fields: Record<string, string>) {
  await browser.get(`/admin/admins/${id}/edit`);
  return browser.post(`/admin/admins/${id}`, { name: '', notes: '', superuser: '1', enabled: '1', ...fields });
}

function inviteLink(mail: ReceivedMail): { url: string; path: string } {
  const url = /https?:\/\/\S+\/admin\/password\/edit\?\S+/.exec(mail.text)![0];
  const parsed = new URL(url);
  return { url, path: `${parsed.pathname}${parsed.search}` };
}

async function noMoreMail(count: number): Promise<void> {
  await sleep(300);
  expect(smtp!.received).toHaveLength(count);
}

describe('Add Admin with "Send invite email"', () => {
  it('is ticked by default, mails "<site_name> Admin Access" with a link that sets the password and signs the admin in', async () => {
    const { gw, smtp, ops, browser } = await start();
    const form = await ops.get('/admin/admins/new');
    expect(checkbox(form.body, 'send_invite_email', '1')).toBe('checked');
    expect(textOf(form.body)).toContain('Send invite email');

    const added = await addAdmin(ops, { email: 'New.Admin@Example.com', send_invite_email: '1' });
    expect(added.status).toBe(303);
    expect(added.location).toBe('/admin/admins');
    expect(textOf((await ops.follow(added)).body)).toContain('Added the admin new.admin@example.com. An invite email with a link to set their password (good for 7 days) is on its way to them.');
    const admin = gw.context.admins.findByEmail('new.admin@example.com')!;
    expect(admin).toMatchObject({ has_password: false, superuser: true, enabled: true, last_sign_in_at: null });

    const [mail] = await smtp.mails(1);
    expect(mail).toMatchObject({ to: ['new.admin@example.com'], subject: 'Weather API Admin Access' });
    expect(mail!.text).toContain('Welcome to the Weather API admin. To get started, set your password with the link below.');
    // Without public_url, built as the inviting admin's request came.
    const link = inviteLink(mail!);
    expect(link.url).toMatch(new RegExp(`^${gw.url}/admin/password/edit\\?invite=true&reset_password_token=[A-Za-z0-9_-]{43}$`));

    const them = browser();
    const edit = await them.get(link.url);
    expect(edit.status).toBe(200);
    expect(textOf(edit.body)).toContain('Change Your Password');
    expect(textOf(edit.body)).toContain('Welcome to the Weather API admin');
    const token = new URL(link.url).searchParams.get('reset_password_token')!;
    const set = await them.post('/admin/password/update', { reset_password_token: token, password: THEIR_PASSWORD, password_confirmation: THEIR_PASSWORD });
    expect(set.status).toBe(303);
    expect(set.location).toBe('/admin/');
    const account = await them.get('/admin/account');
    expect(account.status).toBe(200);
    expect(account.body).toContain('>new.admin@example.com</summary>');
    expect(textOf(account.body)).toContain('Your password has been set. You are now signed in.');
    expect(gw.context.admins.findByEmail('new.admin@example.com')).toMatchObject({ has_password: true });
    expect(gw.context.admins.findByEmail('new.admin@example.com')!.current_sign_in_at).not.toBeNull();
    expect((await browser().signIn('new.admin@example.com', THEIR_PASSWORD)).location).toBe('/admin/');

    // Signed in now: Edit Admin offers no resend.
    expect(checkbox((await ops.get(`/admin/admins/${admin.id}/edit`)).body, 'resend_invite_email', '1')).toBe('absent');
    // And the link is spent.
    expect((await browser().get(link.path)).status).toBe(404);
  });

  it('sends nothing when unticked, and then asks for the password as before', async () => {
    const { gw, ops } = await start();
    const refused = await addAdmin(ops, { email: 'quiet@example.com' });
    expect(refused.status).toBe(422);
    expect(textOf(refused.body)).toContain("Password can't be blank");
    // The box stays as it was posted (unticked).
    expect(checkbox(refused.body, 'send_invite_email', '1')).toBe('unchecked');
    const added = await addAdmin(ops, { email: 'quiet@example.com', password: PASSWORD, password_confirmation: PASSWORD });
    expect(added.status).toBe(303);
    expect(textOf((await ops.follow(added)).body)).toContain('Added the admin quiet@example.com. They can sign in with the password you set.');
    expect(gw.context.admins.findByEmail('quiet@example.com')).toMatchObject({ has_password: true });
    await noMoreMail(0);
  });

  it('keeps a password given with the invite, checking it as before', async () => {
    const { gw, smtp, ops } = await start();
    const short = await addAdmin(ops, { email: 'both@example.com', send_invite_email: '1', password: 'short', password_confirmation: 'short' });
    expect(short.status).toBe(422);
    expect(checkbox(short.body, 'send_invite_email', '1')).toBe('checked');
    expect(gw.context.admins.findByEmail('both@example.com')).toBeNull();
    expect((await addAdmin(ops, { email: 'both@example.com', send_invite_email: '1', password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(303);
    expect((await new HttpAdminClient(gw.url).signIn('both@example.com', PASSWORD)).location).toBe('/admin/');
    await smtp.mails(1);
  });

  it('uses public_url for the link when it is set', async () => {
    const { smtp, ops } = await start({ config: { public_url: 'https://gateway.example.com/' } });
    await addAdmin(ops, { email: 'new@example.com', send_invite_email: '1' });
    expect(inviteLink((await smtp.mails(1))[0]!).url).toMatch(/^https:\/\/gateway\.example\.com\/admin\/password\/edit\?invite=true&reset_password_token=/);
  });

  it('puts a name with markup in the mail as plain text, and shows it escaped', async () => {
    const { gw, smtp, ops } = await start();
    const name = '<script>alert("x")</script>';
    await addAdmin(ops, { email: 'marked@example.com', name, send_invite_email: '1' });
    const [mail] = await smtp.mails(1);
    expect(mail!.text).toContain(`Hi ${name},`);
    expect(smtp.headers[0]).toMatch(/content-type: text\/plain/i);
    const id = gw.context.admins.findByEmail('marked@example.com')!.id;
    const edit = await ops.get(`/admin/admins/${id}/edit`);
    expect(edit.body).not.toContain(name);
    expect(edit.body).toContain('value="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"');
  });
});

describe('Edit Admin with "Resend invite email"', () => {
  it('is offered unticked to an admin who has not signed in, and sends only when ticked', async () => {
    const { gw, smtp, ops, browser } = await start();
    const pending = (await gw.context.admins.create({ email: 'pending@example.com', superuser: true }))!.admin;
    const edit = await ops.get(`/admin/admins/${pending.id}/edit`);
    expect(checkbox(edit.body, 'resend_invite_email', '1')).toBe('unchecked');
    expect(textOf(edit.body)).toContain('Resend invite email');

    const saved = await editAdmin(ops, pending.id, { email: pending.email, notes: 'Foo' });
    expect(saved.status).toBe(303);
    expect(gw.context.admins.get(pending.id)!.notes).toBe('Foo');
    await noMoreMail(0);

    const resent = await editAdmin(ops, pending.id, { email: pending.email, notes: 'Bar', resend_invite_email: '1' });
    expect(resent.status).toBe(303);
    expect(textOf((await ops.follow(resent)).body)).toContain('Saved the admin pending@example.com. A new invite email is on its way to pending@example.com.');
    expect(gw.context.admins.get(pending.id)!.notes).toBe('Bar');
    const [first] = await smtp.mails(1);
    expect(first).toMatchObject({ to: ['pending@example.com'], subject: 'Weather API Admin Access' });

    // A second resend replaces the first link.
    await editAdmin(ops, pending.id, { email: pending.email, notes: 'Bar', resend_invite_email: '1' });
    const [, second] = await smtp.mails(2);
    expect((await browser().get(inviteLink(first!).path)).status).toBe(404);
    expect((await browser().get(inviteLink(second!).path)).status).toBe(200);

    // Once they have signed in, there is nothing to resend.
    gw.context.admins.recordSignIn(pending.id, '127.0.0.1');
    expect(checkbox((await ops.get(`/admin/admins/${pending.id}/edit`)).body, 'resend_invite_email', '1')).toBe('absent');
    await editAdmin(ops, pending.id, { email: pending.email, resend_invite_email: '1' });
    await noMoreMail(2);
  });

  it('keeps an invite link good for 7 days, not 6 hours', async () => {
    const clock = new ManualClock();
    const { smtp, ops, browser } = await start({ clock });
    await addAdmin(ops, { email: 'later@example.com', send_invite_email: '1' });
    const link = inviteLink((await smtp.mails(1))[0]!);
    clock.advance(7 * DAY);
    expect((await browser().get(link.path)).status).toBe(200);
    clock.advance(1);
    const expired = await browser().get(link.path);
    expect(expired.status).toBe(410);
    expect(textOf(expired.body)).toContain('This invitation has expired.');
  });
});

describe('Admin Accounts without a mailer', () => {
  it('offers no invite, and a box posted anyway asks for nothing: the password is needed', async () => {
    const { gw, ops } = await start({ mailer: false });
    const form = await ops.get('/admin/admins/new');
    expect(checkbox(form.body, 'send_invite_email', '1')).toBe('absent');
    const refused = await addAdmin(ops, { email: 'new@example.com', send_invite_email: '1' });
    expect(refused.status).toBe(422);
    expect(gw.context.admins.findByEmail('new@example.com')).toBeNull();
    const pending = (await gw.context.admins.create({ email: 'pending@example.com', superuser: true }))!.admin;
    expect(checkbox((await ops.get(`/admin/admins/${pending.id}/edit`)).body, 'resend_invite_email', '1')).toBe('absent');
    expect((await editAdmin(ops, pending.id, { email: pending.email, resend_invite_email: '1' })).status).toBe(303);
    await noMoreMail(0);
  });
});
