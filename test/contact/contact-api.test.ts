// POST /api-umbrella/v1/contact(.json), as API Umbrella's tests specify it
// (test/apis/v1/contact/test_email.rb, test_permissions.rb), over real HTTP
// against a real gateway and a real SMTP server on loopback.
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { httpsConfig } from '../helpers/tls.js';
import { CONTACT_ROLE, formOf, startContactGateway, VALID_CONTACT, type ContactSetup } from './contact-gateway.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const MAIL_TEXT = 'Name: Foo\nEmail: foo@example.com\nAPI: Example API\nSubject: Support\n\n-------------------------------------\n\nMessage body\n\n-------------------------------------\n';

let setup: ContactSetup | null = null;
let gateway: TestGateway | null = null;
afterEach(async () => {
  await setup?.close();
  await gateway?.stop();
  setup = gateway = null;
});

describe('a contact message', () => {
  it('answers 200 {"submitted": <ISO 8601>} and mails one plain-text message to contact_email, replies going to the sender', async () => {
    setup = await startContactGateway();
    const response = await setup.postForm(VALID_CONTACT);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['submitted']);
    expect(response.body.submitted).toMatch(ISO_8601);

    const [mail] = await setup.smtp!.mails(1);
    expect(mail).toMatchObject({ from: 'noreply@weather.example', fromHeader: 'noreply@weather.example', to: ['ops@weather.example'], subject: 'Weather API Contact Message from foo@example.com' });
    expect(mail!.text).toBe(MAIL_TEXT);
    const headers = setup.smtp!.headers[0]!;
    expect(headers).toMatch(/^To: ops@weather\.example$/im);
    expect(headers).toMatch(/^Reply-To: foo@example\.com$/im);
    expect(headers).toMatch(/^Content-Type: text\/plain; charset=utf-8$/im);
    expect(headers).not.toMatch(/multipart|text\/html/i);
    expect(setup.smtp!.received).toHaveLength(1);
  });

  it('takes the path without .json, a JSON body with or without "contact", and the key as ?api_key=, as the form posts it', async () => {
    setup = await startContactGateway();
    expect((await setup.postForm(VALID_CONTACT, { path: '/api-umbrella/v1/contact' })).status).toBe(200);
    expect((await setup.postJson({ contact: { ...VALID_CONTACT, subject: 'Wrapped' } })).status).toBe(200);
    expect((await setup.postJson({ ...VALID_CONTACT, subject: 'Bare' }, { key: null, path: `/api-umbrella/v1/contact.json?api_key=${setup.key}` })).status).toBe(200);
    const mails = await setup.smtp!.mails(3);
    expect(mails.map((mail) => /^Subject: (.*)$/m.exec(mail.text)?.[1]).sort()).toEqual(['Bare', 'Support', 'Wrapped']);
  });

  it('sends Reply-To as exactly the one mailbox given, quoted, even with a comma in it', async () => {
    setup = await startContactGateway();
    expect((await setup.postForm({ ...VALID_CONTACT, email: 'x,ada@example.com' })).status).toBe(200);
    await setup.smtp!.mails(1);
    expect(setup.smtp!.headers[0]).toMatch(/^Reply-To: <"x,ada"@example\.com>$/im);
  });
});

describe('who may send one', () => {
  it('refuses a key without the role api-umbrella-contact-form with 401, and sends nothing', async () => {
    setup = await startContactGateway();
    const { apiKey } = await setup.gateway.createUser({ email: 'near-miss@example.com', roles: [`x${CONTACT_ROLE}`, `${CONTACT_ROLE}x`, 'api-umbrella-key-creator'] });
    const response = await setup.postForm(VALID_CONTACT, { key: apiKey });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'You need to sign in or sign up before continuing.' });
    expect(setup.smtp!.attempts).toBe(0);
  });

  it('refuses no key, an unknown key, a disabled or expired key with the role, and an admin token alone, all with 401', async () => {
    setup = await startContactGateway();
    const disabled = await setup.gateway.createUser({ email: 'off@example.com', roles: [CONTACT_ROLE], enabled: false });
    const expired = await setup.gateway.createUser({ email: 'old@example.com', roles: [CONTACT_ROLE], expires_at: '2020-01-01T00:00:00Z' });
    const statuses = [
      (await setup.postForm(VALID_CONTACT, { key: null })).status,
      (await setup.postForm(VALID_CONTACT, { key: 'a'.repeat(40) })).status,
      (await setup.postForm(VALID_CONTACT, { key: disabled.apiKey })).status,
      (await setup.postForm(VALID_CONTACT, { key: expired.apiKey })).status,
      (await setup.postForm(VALID_CONTACT, { key: null, headers: { 'X-Admin-Auth-Token': setup.gateway.adminToken } })).status,
    ];
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    expect(setup.smtp!.attempts).toBe(0);
  });

  it('checks the key before the body: a caller without one gets 401 for a malformed body too', async () => {
    setup = await startContactGateway();
    const response = await setup.postJson('{', { key: null });
    expect(response.status).toBe(401);
    const withKey = await fetch(`${setup.gateway.url}/api-umbrella/v1/contact.json`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Api-Key': setup.key }, body: '{' });
    expect(withKey.status).toBe(400);
  });
});

describe('CORS, for a contact form on another origin', () => {
  it('answers the preflight with 204 and what the form sends, and every answer with Access-Control-Allow-Origin: *', async () => {
    setup = await startContactGateway();
    for (const path of ['/api-umbrella/v1/contact.json', '/api-umbrella/v1/contact']) {
      const preflight = await fetch(`${setup.gateway.url}${path}`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://developer.weather.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(Object.fromEntries(preflight.headers)).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-headers': 'Content-Type, X-Api-Key',
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-max-age': '600',
      });
    }
    expect((await setup.postForm(VALID_CONTACT)).headers['access-control-allow-origin']).toBe('*');
    expect((await setup.postForm({})).headers['access-control-allow-origin']).toBe('*');
    expect((await setup.postForm(VALID_CONTACT, { key: null })).headers['access-control-allow-origin']).toBe('*');
  });
});

describe('with an HTTPS listener', () => {
  it('answers plain HTTP from another machine 400 HTTPS_REQUIRED before the key is looked at, and serves HTTPS as the proxy says', async () => {
    gateway = await startTestGateway(httpsConfig({ contact_email: 'ops@weather.example' }));
    const { apiKey } = await gateway.createUser({ roles: [CONTACT_ROLE] });
    const call = (headers: Record<string, string>) =>
      request(`${gateway!.url}/api-umbrella/v1/contact.json`, {
        method: 'POST',
        headers: { host: 'gateway.example', 'x-forwarded-for': '203.0.113.9', 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': apiKey, ...headers },
        body: formOf(VALID_CONTACT),
      });
    const plain = await call({});
    expect([plain.statusCode, plain.headers['access-control-allow-origin']]).toEqual([400, '*']);
    expect(await plain.body.json()).toEqual({
      error: { code: 'HTTPS_REQUIRED', message: 'Requests must be made over HTTPS. Try accessing the API at: https://gateway.example/api-umbrella/v1/contact.json' },
    });
    // Past the HTTPS check, this gateway has no SMTP server: the contact API's own 503.
    const secure = await call({ 'x-forwarded-proto': 'https' });
    expect(secure.statusCode).toBe(503);
    await secure.body.dump();
  });
});
