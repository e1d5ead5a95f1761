// API Umbrella's send_invite_email on POST and PUT /api-umbrella/v1/admins:
// the admin is mailed a link to set their password (a running Parasol, a
// real SMTP server); without a mailer it is ignored and logged, as API
// Umbrella logs a mail it could not send and answers as usual.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startLocalSmtp, type LocalSmtp, type ReceivedMail } from '../mailer/local-smtp.js';

let gw: TestGateway | null = null;
let smtp: LocalSmtp | null = null;
afterEach(async () => {
  await gw?.stop();
  await smtp?.close();
  gw = smtp = null;
});

async function start(overrides: Record<string, unknown> = {}, options: Parameters<typeof startTestGateway>[1] = {}) {
  smtp = await startLocalSmtp();
  gw = await startTestGateway({ site_name: 'Weather API', mailer: { smtp: { host: '127.0.0.1', port: smtp.port } }, ...overrides }, options);
  return { gw, smtp };
}

function linkOf(mail: ReceivedMail): string {
  return /https?:\/\/\S+\/admin\/password\/edit\?invite=true&reset_password_token=[A-Za-z0-9_-]{43}/.exec(mail.text)![0];
}

async function noMoreMail(count: number): Promise<void> {
  await sleep(300);
  expect(smtp!.received).toHaveLength(count);
}

describe('send_invite_email on POST /admins', () => {
  it('mails the new admin, created without a password, a link that sets one', async () => {
    const { gw, smtp } = await start({ public_url: 'https://gateway.example.com' });
    const created = await gw.adminApi('POST', '/admins', { admin: { email: 'New@Example.com', superuser: true, send_invite_email: true } });
    expect(created.status).toBe(201);
    expect(created.body.admin).toMatchObject({ email: 'new@example.com', last_sign_in_at: null });
    expect(created.body.admin).not.toHaveProperty('send_invite_email');
    const [mail] = await smtp.mails(1);
    expect(mail).toMatchObject({ to: ['new@example.com'], subject: 'Weather API Admin Access' });
    const link = new URL(linkOf(mail!));
    expect(link.origin).toBe('https://gateway.example.com');
    const page = await fetch(`${gw.url}${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Change Your Password');
  });

  it('ends the link when the admin is disabled: enabling them again does not bring it back', async () => {
    const { gw, smtp } = await start({ public_url: 'https://gateway.example.com' });
    const created = await gw.adminApi('POST', '/admins', { admin: { email: 'astray@example.com', superuser: true, send_invite_email: true } });
    const link = new URL(linkOf((await smtp.mails(1))[0]!));
    const id = created.body.admin.id as string;
    for (const enabled of [false, true]) expect((await gw.adminApi('PUT', `/admins/${id}`, { admin: { enabled } })).status).toBe(200);
    const page = await fetch(`${gw.url}${link.pathname}${link.search}`);
    expect([page.status, (await page.text()).includes('This link cannot be used')]).toEqual([404, true]);
  });

  it('takes it in options too, and as a form field; only true or "true" asks', async () => {
    const { gw, smtp } = await start();
    expect((await gw.adminApi('POST', '/admins', { admin: { email: 'a@example.com', superuser: true }, options: { send_invite_email: 'true' } })).status).toBe(201);
    const form = 'admin[email]=b@example.com&admin[superuser]=true&admin[send_invite_email]=true';
    expect((await gw.adminApiAs(gw.adminToken, 'POST', '/admins', form, 'application/x-www-form-urlencoded')).status).toBe(201);
    for (const [email, value] of [['c@example.com', false], ['d@example.com', 'false'], ['e@example.com', null], ['f@example.com', '1']] as const) {
      expect((await gw.adminApi('POST', '/admins', { admin: { email, superuser: true, send_invite_email: value } })).status).toBe(201);
    }
    await smtp.mails(2);
    await noMoreMail(2);
    expect(smtp.received.map((mail) => mail.to[0]).sort()).toEqual(['a@example.com', 'b@example.com']);
    // Without public_url, the link is built as the API call came.
    expect(linkOf(smtp.received[0]!).startsWith(`${gw.url}/admin/password/edit?`)).toBe(true);
  });

  it('keeps a password sent with it, and still mails the invite', async () => {
    const { gw, smtp } = await start();
    const created = await gw.adminApi('POST', '/admins', { admin: { email: 'both@example.com', superuser: true, password: 'a long enough passphrase', send_invite_email: true } });
    expect(created.status).toBe(201);
    expect(gw.context.admins.findByEmail('both@example.com')).toMatchObject({ has_password: true });
    await smtp.mails(1);
  });
});

describe('send_invite_email on PUT /admins/:id', () => {
  it('resends to an admin who has not signed in, and not to one who has', async () => {
    const { gw, smtp } = await start();
    const id = (await gw.adminApi('POST', '/admins', { admin: { email: 'pending@example.com', superuser: true } })).body.admin.id as string;
    const plain = await gw.adminApi('PUT', `/admins/${id}`, { admin: { notes: 'Foo' } });
    expect(plain.status).toBe(200);
    await noMoreMail(0);
    const resent = await gw.adminApi('PUT', `/admins/${id}`, { admin: { notes: 'Bar', send_invite_email: true } });
    expect(resent.status).toBe(200);
    expect(resent.body.admin.notes).toBe('Bar');
    const [mail] = await smtp.mails(1);
    expect(mail).toMatchObject({ to: ['pending@example.com'], subject: 'Weather API Admin Access' });

    gw.context.admins.recordSignIn(id, '127.0.0.1');
    const ignored = await gw.adminApi('PUT', `/admins/${id}`, { admin: { notes: 'Baz', send_invite_email: true } });
    expect(ignored.status).toBe(200);
    expect(ignored.body.admin.notes).toBe('Baz');
    await noMoreMail(1);
  });
});

describe('send_invite_email without a mailer', () => {
  it('creates the admin as asked, sends nothing and logs that it was ignored', async () => {
    const { logger, lines } = capturingLogger();
    gw = await startTestGateway({}, { logger });
    const created = await gw.adminApi('POST', '/admins', { admin: { email: 'new@example.com', superuser: true, send_invite_email: true } });
    expect(created.status).toBe(201);
    expect(gw.context.admins.findByEmail('new@example.com')).toMatchObject({ has_password: false });
    const warning = lines.find((line) => line.msg === 'send_invite_email ignored: no mailer (mailer.smtp.host is not set)');
    expect(warning).toMatchObject({ level: 40, admin_id: created.body.admin.id });
    const updated = await gw.adminApi('PUT', `/admins/${created.body.admin.id}`, { admin: { send_invite_email: true } });
    expect(updated.status).toBe(200);
    expect(lines.filter((line) => line.msg === warning!.msg)).toHaveLength(2);
  });
});
