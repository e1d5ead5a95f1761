// "Forgot your password?", as API Umbrella's admin has it (its
// test/admin_ui/login/test_forgot_password.rb): a running Parasol on a
// loopback port, driven over HTTP as a browser does, mailing through a real
// SMTP server, with the store in a SQLite file.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { hmac } from '../../src/lib/secret-token.js';
import { storePath } from '../../src/store/db.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startLocalSmtp, type LocalSmtp, type ReceivedMail } from '../mailer/local-smtp.js';
import { HttpAdminClient, type Page } from './helpers/http-client.js';
import { textOf } from './helpers/admin-client.js';

/** API Umbrella's (Devise's) words, whatever the address. */
const RESET_REQUESTED = 'If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes.';
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'password123456';
const PUBLIC_URL = 'https://gateway.example.com';
const HOUR = 3_600_000;

let gw: TestGateway | null = null;
let smtp: LocalSmtp | null = null;
afterEach(async () => {
  await gw?.stop();
  await smtp?.close();
  gw = smtp = null;
});

interface Started {
  readonly gw: TestGateway;
  readonly smtp: LocalSmtp;
  browser(clientIp?: string): HttpAdminClient;
}

/** A Parasol with a mailer and public_url, and ops@example.com (password PASSWORD). */
async function start(overrides: Record<string, unknown> = {}, options: Parameters<typeof startTestGateway>[1] = {}): Promise<Started> {
  smtp = await startLocalSmtp();
  gw = await startTestGateway({ public_url: PUBLIC_URL, mailer: { from: 'admin@gateway.example.com', smtp: { host: '127.0.0.1', port: smtp.port } }, ...overrides }, options);
  await gw.context.admins.create({ email: 'ops@example.com', password: PASSWORD, superuser: true });
  const running = gw;
  return { gw: running, smtp, browser: (clientIp) => new HttpAdminClient(running.url, clientIp ?? null) };
}

/** Asks for a reset link as the form does: loads the form (its CSRF token), posts the email. */
async function requestReset(browser: HttpAdminClient, email: string): Promise<Page> {
  await browser.get('/admin/password/new');
  return browser.post('/admin/password', { email });
}

/** The link in a mail, as a path on the gateway (public_url's host is not this test's). */
function linkIn(mail: ReceivedMail): { url: string; path: string; token: string } {
  const url = /https?:\/\/\S+\/admin\/password\/edit\?\S+/.exec(mail.text)![0];
  const parsed = new URL(url);
  return { url, path: `${parsed.pathname}${parsed.search}`, token: parsed.searchParams.get('reset_password_token')! };
}

function tokenColumns(running: TestGateway, email: string) {
  return running.context.db
    .prepare('SELECT password_hash, reset_password_token_hash, reset_password_sent_at, reset_password_kind FROM admins WHERE email = ?')
    .get(email) as { password_hash: string | null; reset_password_token_hash: Buffer | null; reset_password_sent_at: number | null; reset_password_kind: string | null };
}

/** Who the browser's session signs in (the menu names them), or null when an admin page sends it to sign in. */
async function signedInAs(browser: HttpAdminClient): Promise<string | null> {
  const page = await browser.get('/admin/account');
  return page.status === 200 ? (/<summary[^>]*>([^<]+@[^<]+)<\/summary>/.exec(page.body)?.[1] ?? 'someone') : null;
}

describe('Forgot your password?', () => {
  it('mails a link that sets a new password once, refusing a short or mismatched one, and signs the admin in', async () => {
    const { gw, smtp, browser } = await start();
    // Another browser, signed in with the old password: the reset must lock it out.
    const other = browser();
    expect((await other.signIn('ops@example.com', PASSWORD)).location).toBe('/admin/');
    const before = tokenColumns(gw, 'ops@example.com');
    expect(before.reset_password_token_hash).toBeNull();
    expect(before.reset_password_sent_at).toBeNull();

    const you = browser('198.51.100.20');
    const login = await you.get('/admin/login');
    expect(login.body).toContain('<a href="/admin/password/new">Forgot your password?</a>');
    const form = await you.get('/admin/password/new');
    expect(form.status).toBe(200);
    expect(form.headers.get('cache-control')).toBe('no-store');
    expect(textOf(form.body)).toContain('Send me reset password instructions');
    const requested = await you.post('/admin/password', { email: 'ops@example.com' });
    expect(requested.status).toBe(303);
    expect(requested.location).toBe('/admin/login');
    expect(textOf((await you.follow(requested)).body)).toContain(RESET_REQUESTED);

    // A token is stored (as an HMAC) with its time; the password is as it was.
    const pending = tokenColumns(gw, 'ops@example.com');
    expect(pending.reset_password_token_hash).not.toBeNull();
    expect(pending.reset_password_sent_at).not.toBeNull();
    expect(pending.password_hash).toBe(before.password_hash);

    const [mail] = await smtp.mails(1);
    expect(mail).toMatchObject({ to: ['ops@example.com'], subject: 'Reset password instructions' });
    const link = linkIn(mail!);
    expect(link.url).toMatch(/^https:\/\/gateway\.example\.com\/admin\/password\/edit\?reset_password_token=[A-Za-z0-9_-]{43}$/);
    expect(Buffer.compare(pending.reset_password_token_hash!, hmac(gw.context.secretKey, link.token))).toBe(0);

    const edit = await you.get(link.path);
    expect(edit.status).toBe(200);
    expect(edit.headers.get('cache-control')).toBe('no-store');
    // The token in its address goes nowhere else, not even as a Referer.
    expect(edit.headers.get('referrer-policy')).toBe('no-referrer');
    const page = textOf(edit.body);
    expect(page).toContain('Change Your Password');
    expect(page).toContain('14 characters minimum');
    for (const label of ['New Password', 'Confirm New Password']) expect(edit.body).toContain(`>${label}</label>`);
    expect(edit.body).toContain('<button type="submit">Change My Password</button>');

    const short = await you.post('/admin/password/update', { reset_password_token: link.token, password: 'short', password_confirmation: 'short' });
    expect(short.status).toBe(422);
    expect(textOf(short.body)).toContain('is too short (minimum is 14 characters)');
    expect(tokenColumns(gw, 'ops@example.com').password_hash).toBe(before.password_hash);

    const mismatch = await you.post('/admin/password/update', { reset_password_token: link.token, password: 'mismatch123456', password_confirmation: 'mismatcH123456' });
    expect(mismatch.status).toBe(422);
    expect(textOf(mismatch.body)).toContain("Confirm New Password doesn't match New Password");
    expect(tokenColumns(gw, 'ops@example.com')).toEqual(pending);
    expect(await signedInAs(other)).not.toBeNull();

    const changed = await you.post('/admin/password/update', { reset_password_token: link.token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(changed.status).toBe(303);
    expect(changed.location).toBe('/admin/');
    expect(textOf((await you.get('/admin/account')).body)).toContain('Your password has been changed successfully. You are now signed in.');
    expect(await signedInAs(you)).toBe('ops@example.com');
    // A sign-in from the browser that used the link, after the other's.
    expect(gw.context.admins.findByEmail('ops@example.com')).toMatchObject({ sign_in_count: 2, current_sign_in_ip: '198.51.100.20', last_sign_in_ip: '127.0.0.1' });

    const after = tokenColumns(gw, 'ops@example.com');
    expect(after).toMatchObject({ reset_password_token_hash: null, reset_password_sent_at: null, reset_password_kind: null });
    expect(after.password_hash).not.toBe(before.password_hash);
    expect(after.password_hash).toMatch(/^\$argon2id\$/);
    // Whoever had the old password is out, and it signs in no more; the new one does.
    expect(await signedInAs(other)).toBeNull();
    expect((await browser().signIn('ops@example.com', PASSWORD)).status).toBe(401);
    expect((await browser().signIn('ops@example.com', NEW_PASSWORD)).location).toBe('/admin/');

    // The link worked once.
    for (const used of [await you.get(link.path), await you.post('/admin/password/update', { reset_password_token: link.token, password: 'another password 1', password_confirmation: 'another password 1' })]) {
      expect(used.status).toBe(404);
      expect(textOf(used.body)).toContain('This link cannot be used');
      expect(used.body).toContain('href="/admin/password/new"');
    }
    expect(tokenColumns(gw, 'ops@example.com').password_hash).toBe(after.password_hash);
  });

  it('answers an unknown email with the same notice and sends nothing; a known one in any case gets the mail', async () => {
    const { smtp, browser } = await start();
    const unknown = await requestReset(browser(), 'nobody@example.com');
    const known = await requestReset(browser(), 'OPS@Example.COM');
    for (const answer of [unknown, known]) {
      expect(answer.status).toBe(303);
      expect(answer.location).toBe('/admin/login');
    }
    expect(unknown.headers.getSetCookie().find((cookie) => cookie.startsWith('parasol_flash='))).toBe(known.headers.getSetCookie().find((cookie) => cookie.startsWith('parasol_flash=')));
    await smtp.mails(1);
    await sleep(300);
    expect(smtp.received.map((mail) => mail.to)).toEqual([['ops@example.com']]);
  });

  it('sends nothing to a disabled admin, and a new request replaces the earlier link', async () => {
    const { gw, smtp, browser } = await start();
    const off = (await gw.context.admins.create({ email: 'off@example.com', password: PASSWORD, superuser: false, enabled: false }))!.admin;
    await requestReset(browser(), off.email);
    await requestReset(browser(), 'ops@example.com');
    await requestReset(browser(), 'ops@example.com');
    const [first, second] = await smtp.mails(2);
    await sleep(300);
    expect(smtp.received.map((mail) => mail.to)).toEqual([['ops@example.com'], ['ops@example.com']]);
    const you = browser();
    expect((await you.get(linkIn(first!).path)).status).toBe(404);
    expect((await you.get(linkIn(second!).path)).status).toBe(200);
  });

  it('refuses a link more than 6 hours old with a page that offers a new one, changing nothing', async () => {
    const clock = new ManualClock();
    const { gw, smtp, browser } = await start({}, { clock });
    await requestReset(browser(), 'ops@example.com');
    const link = linkIn((await smtp.mails(1))[0]!);
    const you = browser();
    clock.advance(6 * HOUR);
    expect((await you.get(link.path)).status).toBe(200);
    clock.advance(1);
    const expired = await you.get(link.path);
    expect(expired.status).toBe(410);
    expect(textOf(expired.body)).toContain('This password reset link has expired. Request a new one.');
    expect(expired.body).toContain('href="/admin/password/new"');
    const before = tokenColumns(gw, 'ops@example.com').password_hash;
    const refused = await you.post('/admin/password/update', { reset_password_token: link.token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(refused.status).toBe(410);
    expect(tokenColumns(gw, 'ops@example.com').password_hash).toBe(before);
    expect(await signedInAs(you)).toBeNull();
  });

  it('lets exactly one of two simultaneous submissions of a link set the password', async () => {
    const { gw, smtp, browser } = await start();
    await requestReset(browser(), 'ops@example.com');
    const link = linkIn((await smtp.mails(1))[0]!);
    const [one, two] = [browser(), browser()];
    await Promise.all([one.get(link.path), two.get(link.path)]);
    const answers = await Promise.all([
      one.post('/admin/password/update', { reset_password_token: link.token, password: 'first password 123', password_confirmation: 'first password 123' }),
      two.post('/admin/password/update', { reset_password_token: link.token, password: 'second password 123', password_confirmation: 'second password 123' }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 404]);
    const winner = answers[0]!.status === 303 ? 'first password 123' : 'second password 123';
    const loser = winner.startsWith('first') ? 'second password 123' : 'first password 123';
    expect(await gw.context.admins.checkPassword('ops@example.com', winner)).not.toBeNull();
    expect(await gw.context.admins.checkPassword('ops@example.com', loser)).toBeNull();
  });

  it('answers a made-up or malformed token with the same clear page, not an error', async () => {
    const { browser } = await start();
    const you = browser();
    for (const query of ['', '?reset_password_token=', `?reset_password_token=${'A'.repeat(43)}`, '?reset_password_token=%3Cscript%3E', '?reset_password_token=a&reset_password_token=b']) {
      const page = await you.get(`/admin/password/edit${query}`);
      expect(page.status, query).toBe(404);
      expect(textOf(page.body)).toContain('This link cannot be used');
    }
  });

  it('throttles requests per email and per client IP: a flood sends a few mails only', async () => {
    const clock = new ManualClock();
    const { smtp, browser } = await start({ admin: { login_max_failures: 2, login_lockout_minutes: 10 } }, { clock });
    // One address from many IPs: two mails, then refused whatever the IP.
    const answers = [];
    for (let i = 1; i <= 4; i++) answers.push((await requestReset(browser(`203.0.113.${i}`), 'ops@example.com')).status);
    expect(answers).toEqual([303, 303, 429, 429]);
    const refused = await requestReset(browser('203.0.113.9'), 'ops@example.com');
    expect(textOf(refused.body)).toContain('Too many password reset requests. Try again in 10 minutes.');
    // An unknown address is counted alike (a refusal tells nothing of the address).
    expect((await requestReset(browser('198.51.100.1'), 'nobody@example.com')).status).toBe(303);
    expect((await requestReset(browser('198.51.100.2'), 'nobody@example.com')).status).toBe(303);
    expect((await requestReset(browser('198.51.100.3'), 'nobody@example.com')).status).toBe(429);
    // One IP trying many addresses: two requests, then refused.
    const fromOne = [];
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) fromOne.push((await requestReset(browser('192.0.2.7'), email)).status);
    expect(fromOne).toEqual([303, 303, 429]);
    await smtp.mails(2);
    await sleep(300);
    expect(smtp.received).toHaveLength(2);
    // Once the windows have passed, the address may ask again.
    clock.advance(20 * 60_000);
    expect((await requestReset(browser('203.0.113.50'), 'ops@example.com')).status).toBe(303);
    await smtp.mails(3);
  });

  it('throttles requests from an IPv6 client per /64, not per address', async () => {
    const { smtp, browser } = await start({ admin: { login_max_failures: 2, login_lockout_minutes: 10 } });
    const fromOneNetwork = [];
    for (const [host, email] of [['1', 'a@example.com'], ['2', 'b@example.com'], ['3', 'ops@example.com']] as const) {
      fromOneNetwork.push((await requestReset(browser(`2001:db8:0:1::${host}`), email)).status);
    }
    expect(fromOneNetwork).toEqual([303, 303, 429]);
    expect((await requestReset(browser('2001:db8:0:2::1'), 'ops@example.com')).status).toBe(303);
    await smtp.mails(1);
  });

  it('refuses a form without its CSRF token, sending and changing nothing', async () => {
    const { gw, smtp, browser } = await start();
    const you = browser();
    await you.get('/admin/password/new');
    const forged = await you.post('/admin/password', { email: 'ops@example.com', _csrf: '' });
    expect(forged.status).toBe(403);
    expect(textOf(forged.body)).toContain('This form has expired');

    await requestReset(you, 'ops@example.com');
    const link = linkIn((await smtp.mails(1))[0]!);
    await you.get(link.path);
    const before = tokenColumns(gw, 'ops@example.com');
    const forgedChange = await you.post('/admin/password/update', { reset_password_token: link.token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD, _csrf: '' });
    expect(forgedChange.status).toBe(403);
    const wrongToken = await you.post('/admin/password/update', { reset_password_token: link.token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD, _csrf: 'x' });
    expect(wrongToken.status).toBe(403);
    expect(tokenColumns(gw, 'ops@example.com')).toEqual(before);
    expect(smtp.received).toHaveLength(1);
  });

  it('logs a link as mailed only once the SMTP server took it', async () => {
    const { logger, lines, nextLine } = capturingLogger();
    const { smtp } = await start({}, { logger });
    await smtp.close();
    const failed = nextLine('email delivery failed');
    await requestReset(new HttpAdminClient(gw!.url, null), 'ops@example.com');
    expect(await failed).toMatchObject({ mail: 'admin_password_reset' });
    expect(lines.map((line) => line.msg)).not.toContain('admin password reset link mailed');
  });

  it('keeps the token out of the store file and out of the logs, and logs the reset', async () => {
    const { logger, lines } = capturingLogger();
    const { gw, smtp, browser } = await start({}, { logger });
    await requestReset(browser(), 'ops@example.com');
    const link = linkIn((await smtp.mails(1))[0]!);
    const you = browser();
    await you.get(link.path);
    await you.post('/admin/password/update', { reset_password_token: link.token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    const id = gw.context.admins.findByEmail('ops@example.com')!.id;
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'admin password reset link mailed', admin_id: id }));
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'admin password reset through a reset link', admin_id: id, kind: 'reset' }));
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain(link.token);
    expect(logged).not.toContain(NEW_PASSWORD);
    gw.context.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(storePath(gw.context.config.data_dir)).includes(link.token)).toBe(false);
  });
});

describe('Forgot your password? with the admin on a host of its own', () => {
  it('links to the first of admin.hosts when public_url names the APIs\' host, where the admin does not answer', async () => {
    const { smtp, browser } = await start({ admin: { hosts: ['127.0.0.1'] } });
    await requestReset(browser(), 'ops@example.com');
    const [mail] = await smtp.mails(1);
    expect(linkIn(mail!).url).toMatch(/^https:\/\/127\.0\.0\.1\/admin\/password\/edit\?reset_password_token=[A-Za-z0-9_-]{43}$/);
  });
});

describe('Forgot your password? without a mailer or public_url', () => {
  it('is not offered, and its pages answer 404, without a mailer', async () => {
    gw = await startTestGateway({ public_url: PUBLIC_URL });
    const you = new HttpAdminClient(gw.url);
    const login = await you.get('/admin/login');
    expect(login.body).not.toContain('Forgot your password?');
    expect(login.body).not.toContain('/admin/password/new');
    for (const path of ['/admin/password/new', `/admin/password/edit?reset_password_token=${'A'.repeat(43)}`]) expect((await you.get(path)).status, path).toBe(404);
    for (const path of ['/admin/password', '/admin/password/update']) expect((await you.post(path, { email: 'ops@example.com' })).status, path).toBe(404);
  });

  it('is not offered without public_url (the link would be built from a Host header anyone can send), while invite links still work', async () => {
    smtp = await startLocalSmtp();
    gw = await startTestGateway({ mailer: { smtp: { host: '127.0.0.1', port: smtp.port } } });
    const you = new HttpAdminClient(gw.url);
    expect((await you.get('/admin/login')).body).not.toContain('Forgot your password?');
    expect((await you.get('/admin/password/new')).status).toBe(404);
    expect((await you.post('/admin/password', { email: 'ops@example.com' })).status).toBe(404);
    // The page the invite links lead to is there (answering this made-up token as unusable).
    const edit = await you.get(`/admin/password/edit?reset_password_token=${'A'.repeat(43)}`);
    expect(edit.status).toBe(404);
    expect(textOf(edit.body)).toContain('This link cannot be used');
    expect(textOf(edit.body)).toContain('Ask an admin to send you a new invite.');
    expect(smtp.received).toHaveLength(0);
  });
});

describe('password links and other password changes', () => {
  it('forgets a pending link when the password is changed under My Account, or the email changes', async () => {
    const { gw, smtp, browser } = await start();
    await requestReset(browser(), 'ops@example.com');
    const first = linkIn((await smtp.mails(1))[0]!);
    const you = browser();
    await you.signIn('ops@example.com', PASSWORD);
    await you.get('/admin/account');
    const changed = await you.post('/admin/account/password', { current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(changed.status).toBe(303);
    expect((await browser().get(first.path)).status).toBe(404);

    await requestReset(browser(), 'ops@example.com');
    const second = linkIn((await smtp.mails(2))[1]!);
    const id = gw.context.admins.findByEmail('ops@example.com')!.id;
    gw.context.admins.update(id, { email: 'ops2@example.com' });
    expect((await browser().get(second.path)).status).toBe(404);
  });
});

describe('pages and mail with markup in an admin name and email', () => {
  it('keeps the mail plain text, the name as written', async () => {
    const { smtp, gw, browser } = await start();
    // A quote and an ampersand are an address's own characters; angle brackets are no mailbox an SMTP server takes.
    const email = "o'neil&co@example.com";
    const name = '<script>alert("name")</script>';
    await gw.context.admins.create({ email, name, password: PASSWORD, superuser: true });
    await requestReset(browser(), email);
    const [mail] = await smtp.mails(1);
    expect(mail!.to).toEqual([email]);
    expect(mail!.text).toContain(`Hello ${name}!`);
    expect(smtp.headers[0]).toMatch(/content-type: text\/plain/i);
    expect(smtp.headers[0]).not.toMatch(/text\/html/i);
    const edit = await browser().get(linkIn(mail!).path);
    expect(edit.status).toBe(200);
    expect(edit.body).toContain('o&#39;neil&amp;co@example.com');
    expect(edit.body).not.toContain("o'neil&co@");
  });

  it('escapes an email holding markup on the Change Your Password page', async () => {
    const { gw, browser } = await start();
    const email = '<img/src=x/onerror=alert(1)>@example.com';
    const admin = (await gw.context.admins.create({ email, password: PASSWORD, superuser: true }))!.admin;
    // No mail: no SMTP server takes such a mailbox. The link is made as the mail's would be.
    const { passwordTokens } = await import('../../src/admins/password-tokens.js');
    const token = passwordTokens(gw.context).issue(admin.id, 'reset')!;
    const edit = await browser().get(`/admin/password/edit?reset_password_token=${token}`);
    expect(edit.status).toBe(200);
    expect(edit.body).not.toContain('<img/src=x');
    expect(edit.body).toContain('&lt;img/src=x/onerror=alert(1)&gt;@example.com');
  });
});
