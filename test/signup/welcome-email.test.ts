// The welcome email through the real signup paths and a real SMTP server on
// loopback, and the duplicate-email policy that relies on it.
import { afterEach, describe, expect, it } from 'vitest';
import { superuserToken } from '../helpers/admin-api.js';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import { apiUserInput } from '../helpers/users.js';
import { ConfigError } from '../../src/config/load.js';
import { HONEYPOT_FIELD } from '../../src/signup/abuse.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { startLocalSmtp, type LocalSmtp } from '../mailer/local-smtp.js';
import { keyOnPage, startSignupApp, submitSignup, VALID_SIGNUP, type SignupApp } from './signup-app.js';

let smtp: LocalSmtp | null = null;
let running: SignupApp | null = null;
afterEach(async () => {
  await running?.close();
  await smtp?.close();
  running = smtp = null;
});

function mailerConfig(port: number, extra: Record<string, unknown> = {}) {
  return { site_name: 'Weather API', mailer: { from: 'keys@weather.example', smtp: { host: '127.0.0.1', port } }, ...extra };
}

function keyCreator(app: SignupApp): string {
  return app.context.users.create(
    apiUserInput({ email: 'embed@example.com', roles: [KEY_CREATOR_ROLE] }),
    null,
  ).apiKey;
}

describe('the welcome email', () => {
  it('sends "Your <site name> API key" with the key shown on the page and examples on public_url', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port, { public_url: 'https://api.weather.example' }));
    const page = await submitSignup(running.app, VALID_SIGNUP);
    const key = keyOnPage(page.body)!;
    const [mail] = await smtp.mails(1);
    expect(mail).toMatchObject({ from: 'keys@weather.example', to: ['ada@example.com'], subject: 'Your Weather API API key' });
    expect(mail!.text).toContain(`Thank you for signing up for Weather API. Your API key for ada@example.com is:\n\n    ${key}\n`);
    expect(mail!.text).toContain(`curl -H 'X-Api-Key: ${key}' 'https://api.weather.example/your/api/path'`);
    expect(mail!.text).toContain(`curl 'https://api.weather.example/your/api/path?api_key=${key}'`);
    expect(mail!.text).toContain(`curl -u '${key}:' 'https://api.weather.example/your/api/path'`);
  });

  it('never puts a URL from the Host header in a mail: without public_url it names the three ways only', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port));
    const form = await running.app.inject({ method: 'GET', url: '/signup/', headers: { host: 'evil.example' } });
    const cookie = String(form.headers['set-cookie']).split(';')[0]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const page = await running.app.inject({ method: 'POST', url: '/signup/', headers: { host: 'evil.example', cookie }, payload: { ...VALID_SIGNUP, _csrf: token } });
    expect(page.statusCode).toBe(200);
    const [mail] = await smtp.mails(1);
    expect(mail!.text).not.toContain('evil.example');
    expect(mail!.text).toContain('the X-Api-Key header');
    expect(mail!.text).toContain(keyOnPage(page.body)!);
  });

  it.each([
    ['a comma', 'root,ada@example.com', '"root,ada"@example.com'],
    ['a semicolon', 'x;ada@example.com', '"x;ada"@example.com'],
    ['a comment', 'ada(x)@example.com', '"ada(x)"@example.com'],
  ])('mails exactly the address signed up with, even with %s in it, never a part of it', async (_name, email, envelope) => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port));
    const page = await submitSignup(running.app, { ...VALID_SIGNUP, email });
    expect(page.statusCode).toBe(200);
    const [mail] = await smtp.mails(1);
    expect(mail!.to).toEqual([envelope]);
  });

  it('still shows the key when the SMTP server refuses, and logs the failure without the key', async () => {
    smtp = await startLocalSmtp({ refuseFirst: Infinity });
    const { logger, lines } = capturingLogger();
    running = await startSignupApp(mailerConfig(smtp.port), { logger });
    const page = await submitSignup(running.app, VALID_SIGNUP);
    expect(page.statusCode).toBe(200);
    const key = keyOnPage(page.body)!;
    expect(running.context.keyIndex.find(key)).not.toBeNull();
    await smtp.attemptsReach(1);
    await expect.poll(() => lines.find((line) => line.msg === 'email delivery failed')).toMatchObject({ attempt: 1, retry_in_ms: 30_000 });
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  it('still shows the key when no SMTP server listens at all', async () => {
    const gone = await startLocalSmtp();
    await gone.close();
    running = await startSignupApp(mailerConfig(gone.port));
    const page = await submitSignup(running.app, VALID_SIGNUP);
    expect(page.statusCode).toBe(200);
    expect(keyOnPage(page.body)).toMatch(/^[A-Za-z0-9]{40}$/);
  });

  it('goes to signups through the JSON API; to admin-created users only with options.send_welcome_email', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port));
    const adminToken = await superuserToken(running.context, 'admin@example.com');
    const post = (headers: Record<string, string>, payload: Record<string, unknown>) => running!.app.inject({ method: 'POST', url: '/api-umbrella/v1/users', headers, payload });

    expect((await post({ 'x-admin-auth-token': adminToken }, { user: { ...VALID_SIGNUP, email: 'quiet@example.com' } })).statusCode).toBe(201);
    expect((await post({ 'x-admin-auth-token': adminToken }, { user: { ...VALID_SIGNUP, email: 'told@example.com' }, options: { send_welcome_email: true } })).statusCode).toBe(201);
    expect((await post({ 'x-api-key': keyCreator(running) }, { user: { ...VALID_SIGNUP, email: 'embedded@example.com' } })).statusCode).toBe(201);
    const mails = await smtp.mails(2);
    expect(mails.map((mail) => mail.to[0]).sort()).toEqual(['embedded@example.com', 'told@example.com']);
  });
});

describe('with allow_duplicate_emails: false', () => {
  it('sends the key by email only and answers a known address exactly as a new one', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port, { signup: { allow_duplicate_emails: false } }));
    const first = await submitSignup(running.app, VALID_SIGNUP);
    const again = await submitSignup(running.app, { ...VALID_SIGNUP, email: 'ADA@example.com' });
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('We have sent your API key to <strong>ada@example.com</strong>.');
    expect(keyOnPage(first.body)).toBeNull();
    // The form and the homepage say where the key will be before it is asked for.
    const [form, home] = await Promise.all(['/signup/', '/'].map((url) => running!.app.inject({ method: 'GET', url })));
    expect(form!.body).toContain('It is sent to the email address you give.');
    expect(home!.body).toContain('your key is sent to that address.');
    expect(`${form!.body}${home!.body}`).not.toContain('right away');
    expect(again.statusCode).toBe(first.statusCode);
    expect(again.body).toBe(first.body.replace('ada@example.com', 'ADA@example.com'));
    expect(running.context.users.countByEmail('ada@example.com')).toBe(1);

    const [welcome, note] = await smtp.mails(2);
    const key = /Your API key for ada@example.com is:\n\n {4}([A-Za-z0-9]{40})\n/.exec(welcome!.text)![1]!;
    expect(running.context.keyIndex.find(key)?.user.email).toBe('ada@example.com');
    expect(note).toMatchObject({ to: ['ADA@example.com'], subject: 'Your Weather API API key' });
    expect(note!.text).toContain('This address already has an API key, so no new key was made.');
  });

  it('answers the JSON API alike for known and new addresses, without the key', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port, { signup: { allow_duplicate_emails: false } }));
    const key = keyCreator(running);
    const post = () => running!.app.inject({ method: 'POST', url: '/api-umbrella/v1/users', headers: { 'x-api-key': key }, payload: { user: VALID_SIGNUP } });
    const first = await post();
    const again = await post();
    expect(first.statusCode).toBe(201);
    // verify_email tells API Umbrella's embeddable form to say "e-mailed to you" instead of showing a key.
    expect(first.json()).toEqual({
      user: { email: 'ada@example.com' },
      message: 'Your API key has been sent to ada@example.com.',
      options: { contact_url: 'http://localhost:80/contact/', site_name: 'Weather API', verify_email: true },
    });
    expect(again.body).toBe(first.body);
    await smtp.mails(2);
  });

  it('refuses to start without an SMTP server to send keys with', async () => {
    await expect(startSignupApp({ signup: { allow_duplicate_emails: false } })).rejects.toThrow(ConfigError);
    await expect(startSignupApp({ signup: { allow_duplicate_emails: false } })).rejects.toThrow(/signup\.allow_duplicate_emails: false needs mailer\.smtp\.host/);
  });
});

describe('email verification (api_key_verification_level)', () => {
  const verifiedOf = (app: SignupApp, email: string) => app.context.users.list({ search: email }).users.map((user) => user.email_verified);

  it('counts a signup whose key was shown on the page as unverified, and one whose key went by email only as verified', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port));
    expect(keyOnPage((await submitSignup(running.app, VALID_SIGNUP)).body)).not.toBeNull();
    expect(verifiedOf(running, 'ada@example.com')).toEqual([false]);
    await running.close();

    running = await startSignupApp(mailerConfig(smtp.port, { signup: { allow_duplicate_emails: false } }));
    await submitSignup(running.app, VALID_SIGNUP);
    expect(verifiedOf(running, 'ada@example.com')).toEqual([true]);
    await smtp.mails(2);
  });

  it('with signup.verify_email sends every key by email only, also where duplicates are allowed, and a bot gets the same page', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port, { signup: { verify_email: true } }));
    const first = await submitSignup(running.app, VALID_SIGNUP);
    const second = await submitSignup(running.app, VALID_SIGNUP);
    const bot = await submitSignup(running.app, { ...VALID_SIGNUP, [HONEYPOT_FIELD]: '555-0100' });
    // A key-creator's options.verify_email: false cannot undo it.
    const embedded = await running.app.inject({
      method: 'POST',
      url: '/api-umbrella/v1/users',
      headers: { 'x-api-key': keyCreator(running) },
      payload: { user: { ...VALID_SIGNUP, email: 'embedded@example.com' }, options: { verify_email: false } },
    });
    expect(embedded.json()).toMatchObject({ user: { email: 'embedded@example.com' }, options: { verify_email: true } });
    expect(embedded.body).not.toMatch(/"api_key"/);
    expect(first.body).toContain('We have sent your API key to <strong>ada@example.com</strong>.');
    expect(keyOnPage(first.body)).toBeNull();
    // The form and the homepage say where the key will be before it is asked for.
    const [form, home] = await Promise.all(['/signup/', '/'].map((url) => running!.app.inject({ method: 'GET', url })));
    expect(form!.body).toContain('It is sent to the email address you give.');
    expect(home!.body).toContain('your key is sent to that address.');
    expect(`${form!.body}${home!.body}`).not.toContain('right away');
    expect(second.body).toBe(first.body);
    expect(bot.body).toBe(first.body);
    expect(verifiedOf(running, 'ada@example.com')).toEqual([true, true]);
    expect(verifiedOf(running, 'embedded@example.com')).toEqual([true]);
    const mails = await smtp.mails(3);
    expect(mails.map((mail) => /Your API key for ([^ ]+) is:\n\n {4}[A-Za-z0-9]{40}\n/.exec(mail.text)?.[1]).sort()).toEqual(['ada@example.com', 'ada@example.com', 'embedded@example.com']);
  });

  it('honours options.verify_email of the JSON API: no key in the answer, the user verified; admins make verified users', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port));
    const adminToken = await superuserToken(running.context, 'admin@example.com');
    const post = (headers: Record<string, string>, payload: Record<string, unknown>) => running!.app.inject({ method: 'POST', url: '/api-umbrella/v1/users', headers, payload });

    const embedded = await post({ 'x-api-key': keyCreator(running) }, { user: { ...VALID_SIGNUP, email: 'mailed@example.com' }, options: { verify_email: 'true' } });
    expect(embedded.statusCode).toBe(201);
    expect(embedded.json()).toMatchObject({ user: { email: 'mailed@example.com' }, message: 'Your API key has been sent to mailed@example.com.', options: { verify_email: true } });
    expect(embedded.body).not.toMatch(/"api_key"/);
    expect(verifiedOf(running, 'mailed@example.com')).toEqual([true]);
    const [mail] = await smtp.mails(1);
    expect(mail!.to).toEqual(['mailed@example.com']);

    const shown = await post({ 'x-api-key': keyCreator(running) }, { user: { ...VALID_SIGNUP, email: 'shown@example.com' } });
    expect(shown.json().user.api_key).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(verifiedOf(running, 'shown@example.com')).toEqual([false]);

    // As API Umbrella's test_create_email_verification_forced.rb: an admin gets the key back, and verify_email only sets the flag.
    for (const [email, options, verified] of [['staff@example.com', {}, true], ['staff-true@example.com', { verify_email: true }, true], ['staff-false@example.com', { verify_email: false }, false]] as const) {
      const byAdmin = await post({ 'x-admin-auth-token': adminToken }, { user: { ...VALID_SIGNUP, email }, options });
      expect(byAdmin.json().user, email).toMatchObject({ email, email_verified: verified, api_key: expect.stringMatching(/^[A-Za-z0-9]{40}$/) });
    }
  });

  it('refuses options.verify_email with 422 when no mail can be sent, making no user', async () => {
    running = await startSignupApp({});
    const response = await running.app.inject({
      method: 'POST',
      url: '/api-umbrella/v1/users',
      headers: { 'x-api-key': keyCreator(running) },
      payload: { user: { ...VALID_SIGNUP, email: 'nomail@example.com' }, options: { verify_email: true } },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors[0]).toMatchObject({ field: 'options.verify_email', message: 'cannot be used: this gateway sends no email (mailer.smtp.host is not set)' });
    expect(running.context.users.countByEmail('nomail@example.com')).toBe(0);
  });

  it('refuses to start with signup.verify_email but no SMTP server', async () => {
    await expect(startSignupApp({ signup: { verify_email: true } })).rejects.toThrow(/signup\.verify_email: true needs mailer\.smtp\.host/);
  });
});

describe('the notice of a new signup (API Umbrella\'s notify email)', () => {
  it('goes to contact_email when a signup API call asks with options.send_notify_email true, and only then', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port, { contact_email: 'ops@weather.example', public_url: 'https://api.weather.example' }));
    const adminToken = await superuserToken(running.context, 'admin@example.com');
    const post = (email: string, options: Record<string, unknown>) =>
      running!.app.inject({
        method: 'POST',
        url: '/api-umbrella/v1/users',
        headers: { 'x-admin-auth-token': adminToken },
        payload: { user: { ...VALID_SIGNUP, email, use_description: 'I wanna do everything.' }, options },
      });
    for (const [email, options] of [['none@example.com', {}], ['off@example.com', { send_notify_email: false }], ['one@example.com', { send_notify_email: 1 }]] as const) {
      expect((await post(email, options)).statusCode, email).toBe(201);
    }
    const created = await post('told@example.com', { send_notify_email: 'true' });
    // A mail asked for after all of them: by the time it has arrived, a notice wrongly sent for the calls before would have been sent as well.
    await post('last@example.com', { send_welcome_email: true });
    const mails = await smtp.mails(2);
    expect(mails.map((mail) => [mail.to[0], mail.subject]).sort()).toEqual([
      ['last@example.com', 'Your Weather API API key'],
      ['ops@weather.example', 'Ada Lovelace just subscribed'],
    ]);
    const notice = mails.find((mail) => mail.to[0] === 'ops@weather.example')!;
    expect(notice.text).toContain('Email: told@example.com');
    expect(notice.text).toContain('How they will use the APIs: I wanna do everything.');
    expect(notice.text).toContain(`User: https://api.weather.example/admin/api_users/${created.json().user.id}`);
    expect(smtp.received).toHaveLength(2);
  });

  it('goes to signup.notify_email for every signup with signup.send_notify_email', async () => {
    smtp = await startLocalSmtp();
    running = await startSignupApp(mailerConfig(smtp.port, { signup: { send_notify_email: true, notify_email: 'notify-only@weather.example' } }));
    await submitSignup(running.app, VALID_SIGNUP);
    const mails = await smtp.mails(2);
    expect(mails.map((mail) => [mail.to[0], mail.subject]).sort()).toEqual([
      ['ada@example.com', 'Your Weather API API key'],
      ['notify-only@weather.example', 'Ada Lovelace just subscribed'],
    ]);
  });

  it("links the user's admin page on the admin's own host when admin.hosts names one", async () => {
    smtp = await startLocalSmtp();
    const settings = { public_url: 'https://api.weather.example', admin: { hosts: ['admin.weather.example'] }, signup: { send_notify_email: true, notify_email: 'ops@weather.example' } };
    running = await startSignupApp(mailerConfig(smtp.port, settings));
    await submitSignup(running.app, VALID_SIGNUP);
    const notice = (await smtp.mails(2)).find((mail) => mail.to[0] === 'ops@weather.example')!;
    const [user] = running.context.users.list().users;
    expect(notice.text).toContain(`https://admin.weather.example/admin/api_users/${user!.id}`);
  });

  it('refuses to start with signup.send_notify_email but no address or no SMTP server', async () => {
    await expect(startSignupApp({ signup: { send_notify_email: true, notify_email: 'ops@weather.example' } })).rejects.toThrow(/signup\.send_notify_email: true needs mailer\.smtp\.host/);
    await expect(startSignupApp(mailerConfig(2525, { signup: { send_notify_email: true } }))).rejects.toThrow(/signup\.send_notify_email: true needs signup\.notify_email \(or contact_email\)/);
  });
});
