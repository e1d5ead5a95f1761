// What the contact API answers when the message cannot go, or should not:
// no address or SMTP server configured, a refusing server, too many messages
// from one network; and that the message never reaches the log.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { startContactGateway, VALID_CONTACT, type ContactSetup } from './contact-gateway.js';

let setup: ContactSetup | null = null;
afterEach(async () => {
  await setup?.close();
  setup = null;
});

describe('without somewhere to send it', () => {
  it('answers 503 CONTACT_UNAVAILABLE naming contact_email when it is not set, and sends nothing', async () => {
    setup = await startContactGateway({ config: { contact_email: null } });
    const response = await setup.postForm(VALID_CONTACT);
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: { code: 'CONTACT_UNAVAILABLE', message: 'This gateway takes no contact messages: contact_email is not set.' } });
    expect(setup.smtp!.attempts).toBe(0);
  });

  it('answers 503 naming mailer.smtp.host without an SMTP server, and both when neither is set', async () => {
    setup = await startContactGateway({ smtp: false });
    expect((await setup.postForm(VALID_CONTACT)).body.error.message).toBe('This gateway takes no contact messages: mailer.smtp.host is not set.');
    await setup.close();
    setup = await startContactGateway({ smtp: false, config: { contact_email: null } });
    const response = await setup.postForm(VALID_CONTACT);
    expect(response.status).toBe(503);
    expect(response.body.error.message).toBe('This gateway takes no contact messages: mailer.smtp.host and contact_email are not set.');
  });
});

describe('a refusing SMTP server', () => {
  it('answers 502 CONTACT_NOT_SENT with the address to write to when the server refuses for good, and logs no part of the message', async () => {
    const { logger, lines } = capturingLogger();
    setup = await startContactGateway({ smtp: { refuseFirst: Infinity, refuseWith: { code: 550, message: 'Relay denied' } }, context: { logger } });
    const response = await setup.postForm({ ...VALID_CONTACT, name: 'Secret Sender', email: 'secret.sender@example.com', subject: 'Private subject', message: 'The confidential message body' });
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ error: { code: 'CONTACT_NOT_SENT', message: 'Your message could not be sent. Please write to ops@weather.example instead.' } });
    expect(setup.smtp!.attempts).toBe(1);
    expect(lines.find((line) => line.msg === 'email delivery failed')).toMatchObject({ mail: 'contact_message', smtp_code: 550, retry_in_ms: null });
    const logged = JSON.stringify(lines);
    for (const secret of ['Secret Sender', 'secret.sender', 'Private subject', 'confidential']) expect(logged).not.toContain(secret);
  });

  it('answers 200 when the first try fails for now: the mail is tried again in the background', async () => {
    const { logger, lines } = capturingLogger();
    setup = await startContactGateway({ smtp: { refuseFirst: 1 }, context: { logger } });
    const response = await setup.postForm({ ...VALID_CONTACT, message: 'The confidential message body' });
    expect(response.status).toBe(200);
    expect(response.body.submitted).toEqual(expect.any(String));
    expect(lines.find((line) => line.msg === 'email delivery failed')).toMatchObject({ mail: 'contact_message', smtp_code: 451, retry_in_ms: 30_000 });
    expect(JSON.stringify(lines)).not.toContain('confidential');
  });

  it('answers 200 after 5 s at most when the server does not answer the first try (its timeout is 30 s): it goes on in the background', { timeout: 15_000 }, async () => {
    setup = await startContactGateway({ smtp: { hang: true } });
    const response = await setup.postForm(VALID_CONTACT);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ submitted: expect.any(String) });
  });
});

describe('the per-IP limit', () => {
  it('takes signup.rate_limit_per_minute messages a minute from one client IP, then answers 429 OVER_RATE_LIMIT with Retry-After', async () => {
    const clock = new ManualClock();
    setup = await startContactGateway({ config: { signup: { rate_limit_per_minute: 2 } }, context: { clock } });
    const from = (ip: string) => setup!.postForm(VALID_CONTACT, { headers: { 'X-Forwarded-For': ip } });
    expect((await from('203.0.113.5')).status).toBe(200);
    expect((await from('203.0.113.5')).status).toBe(200);

    const refused = await from('203.0.113.5');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: { code: 'OVER_RATE_LIMIT', message: expect.stringMatching(/^Too many messages from your network\. Please try again in [12] minutes?\.$/) } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    await setup.smtp!.mails(2);
    expect(setup.smtp!.attempts).toBe(2);

    expect((await from('198.51.100.7')).status).toBe(200);
    clock.advance(120_000);
    expect((await from('203.0.113.5')).status).toBe(200);
  });

  it('does not count messages sent back with errors, and counts apart from signups', async () => {
    setup = await startContactGateway({ config: { signup: { rate_limit_per_minute: 1 } } });
    const headers = { 'X-Forwarded-For': '203.0.113.10' };
    for (let i = 0; i < 3; i++) expect((await setup.postForm({ ...VALID_CONTACT, email: '' }, { headers })).status).toBe(422);
    const signupKey = (await setup.gateway.createUser({ email: 'embed@example.com', roles: ['api-umbrella-key-creator'] })).apiKey;
    const signup = await fetch(`${setup.gateway.url}/api-umbrella/v1/users.json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': signupKey, ...headers },
      body: JSON.stringify({ user: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', terms_and_conditions: true } }),
    });
    expect(signup.status).toBe(201);
    expect((await setup.postForm(VALID_CONTACT, { headers })).status).toBe(200);
    expect((await setup.postForm(VALID_CONTACT, { headers })).status).toBe(429);
  });
});
