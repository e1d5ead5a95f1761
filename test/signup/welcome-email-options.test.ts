// The welcome email of a signup API call, as API Umbrella's
// test_create_welcome_email.rb and test_create_welcome_email_sanitized_links.rb
// have it: who asks for it, and what the call's options change in it. Real
// sockets and a real SMTP server on loopback.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startLocalSmtp, type LocalSmtp, type ReceivedMail } from '../mailer/local-smtp.js';
import { echoBackend, VALID_SIGNUP } from './signup-app.js';

let smtp: LocalSmtp;
let gateway: TestGateway;
let upstream: EchoUpstream;
let keyCreator: string;

beforeAll(async () => {
  smtp = await startLocalSmtp();
  upstream = await startEchoUpstream();
  gateway = await startTestGateway({
    site_name: 'Weather API',
    public_url: 'https://api.weather.example',
    mailer: { from: 'Weather Keys <keys@weather.example>', smtp: { host: '127.0.0.1', port: smtp.port } },
    signup: { rate_limit_per_minute: 1000, rate_limit_per_hour: 1000 },
  });
  await gateway.publishBackend(echoBackend(upstream, 'Partner', '/partner/', { frontend_host: 'data.partner.example' }));
  await gateway.publishBackend(echoBackend(upstream, 'CDN', '/cdn/', { frontend_host: 'ours.cloudfront.net' }));
  keyCreator = (await gateway.createUser({ email: 'embed@example.com', roles: [KEY_CREATOR_ROLE] })).apiKey;
});
afterEach(() => {
  smtp.received.length = 0;
});
afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
  await smtp?.close();
});

const admin = () => ({ 'x-admin-auth-token': gateway.adminToken });

async function post(headers: Record<string, string>, body: string, contentType: string): Promise<{ status: number; body: any }> {
  const response = await request(`${gateway.url}/api-umbrella/v1/users.json`, { method: 'POST', headers: { ...headers, 'content-type': contentType }, body });
  return { status: response.statusCode, body: await response.body.json() };
}
const postJson = (headers: Record<string, string>, body: unknown) => post(headers, JSON.stringify(body), 'application/json');

/** Form fields as API Umbrella's tests send them (Typhoeus: user[…], options[…]). */
function postForm(headers: Record<string, string>, email: string, fields: Record<string, string>) {
  const form = new URLSearchParams(Object.entries({ ...VALID_SIGNUP, email }).map(([name, value]) => [`user[${name}]`, value]));
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return post(headers, form.toString(), 'application/x-www-form-urlencoded');
}

async function onlyMailTo(email: string): Promise<ReceivedMail> {
  const [mail] = await smtp.mails(1);
  expect(mail!.to).toEqual([email]);
  return mail!;
}

describe("an admin's user[send_welcome_email]", () => {
  it('sends the welcome email whatever its value, "0" too; JSON false, null or none do not', async () => {
    for (const [email, value] of [['json-false@example.com', false], ['json-null@example.com', null], ['none@example.com', undefined]] as const) {
      expect((await postJson(admin(), { user: { ...VALID_SIGNUP, email, send_welcome_email: value } })).status, email).toBe(201);
    }
    expect((await postForm(admin(), 'form-zero@example.com', { 'user[send_welcome_email]': '0' })).status).toBe(201);
    expect((await postJson(admin(), { user: { ...VALID_SIGNUP, email: 'json-text@example.com', send_welcome_email: 'false' } })).status).toBe(201);
    // Asked for after all of them: by the time it has arrived, a mail wrongly sent for a call before would have come too.
    expect((await postJson(admin(), { user: { ...VALID_SIGNUP, email: 'last@example.com' }, options: { send_welcome_email: true } })).status).toBe(201);
    const mails = await smtp.mails(3);
    expect(mails.map((mail) => mail.to[0]).sort()).toEqual(['form-zero@example.com', 'json-text@example.com', 'last@example.com']);
    expect(smtp.received).toHaveLength(3);
  });
});

describe("a key-creator's options.send_welcome_email", () => {
  it('keeps the welcome back when false, as API Umbrella, and sends it otherwise (the signup form asks for it)', async () => {
    const created = await postJson({ 'x-api-key': keyCreator }, { user: { ...VALID_SIGNUP, email: 'no-welcome@example.com' }, options: { send_welcome_email: false } });
    expect([created.status, created.body.options.send_welcome_email]).toEqual([201, false]);
    // Sent after it: by the time it has arrived, a welcome wrongly sent for the call before would have come too.
    expect((await postJson({ 'x-api-key': keyCreator }, { user: { ...VALID_SIGNUP, email: 'welcome@example.com' } })).status).toBe(201);
    await onlyMailTo('welcome@example.com');
    expect(smtp.received).toHaveLength(1);
  });
});

describe("the options of an admin's call (API Umbrella's test_customized_content)", () => {
  it('take site_name, the sender, an example on a published API host and a contact URL at a known domain into the mail', async () => {
    const created = await postForm(admin(), 'custom@example.com', {
      'options[send_welcome_email]': 'true',
      'options[site_name]': 'External Example',
      'options[email_from_name]': 'Tester',
      'options[email_from_address]': 'test@weather.example',
      'options[example_api_url]': 'https://data.partner.example/api.json?api_key={{api_key}}&test=1',
      'options[contact_url]': 'https://weather.example/contact-us',
    });
    expect(created.status).toBe(201);
    const key = created.body.user.api_key as string;
    const mail = await onlyMailTo('custom@example.com');
    expect(mail.fromHeader).toBe('Tester <test@weather.example>');
    expect(mail.subject).toBe('Your External Example API key');
    expect(mail.from).toBe('test@weather.example');
    expect(mail.text).toContain(`Thank you for signing up for External Example. Your API key for custom@example.com is:\n\n    ${key}\n`);
    expect(mail.text).toContain(`Here's an example:\n\n    https://data.partner.example/api.json?api_key=${key}&test=1\n`);
    expect(mail.text).toContain('contact us at https://weather.example/contact-us.');
  });

  it('leave out a sender, an example and a contact URL outside the known domains, a sibling under a shared suffix too', async () => {
    for (const [index, host] of ['evil.example', 'theirs.cloudfront.net'].entries()) {
      const created = await postForm(admin(), `unknown-${index}@example.com`, {
        'options[send_welcome_email]': 'true',
        'options[email_from_address]': `test@${host}`,
        'options[example_api_url]': `https://${host}/api.json?api_key={{api_key}}`,
        'options[contact_url]': `https://${host}/contact-us`,
      });
      expect(created.status).toBe(201);
      const mail = await onlyMailTo(`unknown-${index}@example.com`);
      expect(mail.fromHeader).toBe('Weather Keys <keys@weather.example>');
      expect(mail.text).not.toContain(host);
      expect(mail.text).not.toContain("Here's an example");
      expect(mail.text).toContain('contact us at https://api.weather.example/contact/.');
      smtp.received.length = 0;
    }
  });

  it('take a mailto: contact at a known domain, and a sender name alone keeps the configured address', async () => {
    await postForm(admin(), 'mailto@example.com', { 'options[send_welcome_email]': 'true', 'options[contact_url]': 'mailto:help@weather.example', 'options[email_from_name]': 'Help Desk' });
    const mail = await onlyMailTo('mailto@example.com');
    expect(mail.fromHeader).toBe('Help Desk <keys@weather.example>');
    expect(mail.text).toContain('contact us at mailto:help@weather.example.');
  });
});

describe("the options of a key-creator's call (a key any visitor of the embedding page holds)", () => {
  it('never set the sender, even at a known domain; site_name only as plain text, a contact URL only at a known domain', async () => {
    const created = await postJson(
      { 'x-api-key': keyCreator },
      {
        user: { ...VALID_SIGNUP, email: 'embedded@example.com' },
        options: { site_name: 'Weather Partners', email_from_name: 'IT Security', email_from_address: 'security@weather.example', contact_url: 'https://weather.example/help' },
      },
    );
    expect(created.status).toBe(201);
    const mail = await onlyMailTo('embedded@example.com');
    expect(mail.fromHeader).toBe('Weather Keys <keys@weather.example>');
    expect(mail.from).toBe('keys@weather.example');
    expect(mail.text).toContain('Thank you for signing up for Weather Partners.');
    expect(mail.text).toContain('contact us at https://weather.example/help.');
  });

  it('leave out a site_name a mail client would show as a link', async () => {
    await postJson({ 'x-api-key': keyCreator }, { user: { ...VALID_SIGNUP, email: 'linked@example.com' }, options: { site_name: 'Claim your prize at www.evil.example' } });
    const mail = await onlyMailTo('linked@example.com');
    expect(mail.text).toContain('Thank you for signing up for Weather API.');
    expect(mail.text).not.toContain('evil');
  });
});
