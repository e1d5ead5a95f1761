// The contact API's checks, with API Umbrella's messages and default rules
// (test/apis/v1/contact/test_validations.rb), and why they matter here: the
// one-line fields go into mail headers, so no line break gets through them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContactGateway, VALID_CONTACT, type ContactSetup } from './contact-gateway.js';

const byFullMessage = (a: { full_message: string }, b: { full_message: string }) => a.full_message.localeCompare(b.full_message);
const invalid = (field: string, label: string) => ({ errors: [{ code: 'INVALID_INPUT', field, message: 'is invalid', full_message: `${label}: is invalid` }] });

let setup: ContactSetup;
beforeAll(async () => {
  // Checks answer before the rate limit counts; the limit is out of the way of this file's many calls anyway.
  setup = await startContactGateway({ config: { signup: { rate_limit_per_minute: 0, rate_limit_per_hour: 0 } } });
});
afterAll(() => setup.close());

describe('required fields', () => {
  it('answers 422 with one error per missing field, in API Umbrella\'s words and shape', async () => {
    const response = await setup.postForm({});
    expect(response.status).toBe(422);
    expect(Object.keys(response.body)).toEqual(['errors']);
    expect([...response.body.errors].sort(byFullMessage)).toEqual(
      [
        { code: 'INVALID_INPUT', message: 'Provide your name.', field: 'name', full_message: 'Name: Provide your name.' },
        { code: 'INVALID_INPUT', message: 'Provide your email address.', field: 'email', full_message: 'Email: Provide your email address.' },
        { code: 'INVALID_INPUT', message: 'Provide the API.', field: 'api', full_message: 'API: Provide the API.' },
        { code: 'INVALID_INPUT', message: 'Provide a subject.', field: 'subject', full_message: 'Subject: Provide a subject.' },
        { code: 'INVALID_INPUT', message: 'Provide a message.', field: 'message', full_message: 'Message: Provide a message.' },
      ].sort(byFullMessage),
    );
  });

  it('counts blanks, values that are no strings, and form fields outside contact[…] as missing', async () => {
    const blank = await setup.postForm({ ...VALID_CONTACT, name: '   ', message: '\n \n' });
    expect(blank.body.errors.map((error: { field: string }) => error.field)).toEqual(['name', 'message']);
    const typed = await setup.postJson({ contact: { ...VALID_CONTACT, api: 7, subject: ['Support'], message: { text: 'hi' } } });
    expect(typed.body.errors.map((error: { message: string }) => error.message)).toEqual(['Provide the API.', 'Provide a subject.', 'Provide a message.']);
    const unwrapped = await fetch(`${setup.gateway.url}/api-umbrella/v1/contact.json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Api-Key': setup.key },
      body: new URLSearchParams(VALID_CONTACT).toString(),
    });
    expect(unwrapped.status).toBe(422);
    expect(((await unwrapped.json()) as { errors: unknown[] }).errors).toHaveLength(5);
    expect(setup.smtp!.attempts).toBe(0);
  });
});

describe('formats', () => {
  it.each([
    ['an email without a dot in its domain', { email: 'foo@example' }, 'email', 'Email'],
    ['an email with a space', { email: 'foo bar@example.com' }, 'email', 'Email'],
    // Taken before, then refused by the SMTP server or rewritten into another mailbox ("x y"@example.org as Reply-To).
    ['an email with ">" in it', { email: 'x>y@example.org' }, 'email', 'Email'],
    ['an email with more after its domain', { email: 'foo@example.com;x' }, 'email', 'Email'],
    ['an email whose domain is no host name', { email: 'foo@example.com(x)' }, 'email', 'Email'],
    ['markup in the name', { name: '<' }, 'name', 'Name'],
    ['a link in the name', { name: 'Visit WWW.spam.example' }, 'name', 'Name'],
    ['a script in the API', { api: '<script' }, 'api', 'API'],
    ['a script in the subject', { subject: '<SCRIPT>' }, 'subject', 'Subject'],
    ['a message that is only a number', { message: '123' }, 'message', 'Message'],
    ['a message that is only a number among spaces', { message: ' 123 ' }, 'message', 'Message'],
  ])('refuses %s with 422 "is invalid"', async (_name, change, field, label) => {
    const response = await setup.postForm({ ...VALID_CONTACT, ...change });
    expect(response.status).toBe(422);
    expect(response.body).toEqual(invalid(field, label));
  });

  it('takes numbers inside a message, and an email in capitals', async () => {
    expect((await setup.postForm({ ...VALID_CONTACT, message: 'Numbers inside message:\n123\nTest' })).status).toBe(200);
    expect((await setup.postForm({ ...VALID_CONTACT, email: 'foo@EXAMPLE.COM' })).status).toBe(200);
    const mails = await setup.smtp!.mails(2);
    expect(mails.map((mail) => mail.text).join('')).toContain('\nNumbers inside message:\n123\nTest\n');
  });

  it('refuses one-line fields longer than 255 characters', async () => {
    const response = await setup.postForm({ ...VALID_CONTACT, subject: 's'.repeat(256) });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ code: 'INVALID_INPUT', field: 'subject', message: 'is too long (maximum is 255 characters)', full_message: 'Subject: is too long (maximum is 255 characters)' }]);
  });
});

describe('header injection', () => {
  it.each([
    ['name', 'Foo\r\nBcc: victim@example.org', 'Name'],
    ['email', 'foo@example.com\r\nBcc: victim@example.org', 'Email'],
    ['email', 'foo@example.com\nBcc:victim@example.org', 'Email'],
    ['api', 'Example\rBcc: victim@example.org', 'API'],
    ['subject', 'Support\r\nBcc: victim@example.org', 'Subject'],
    ['subject', 'Support\u0000Bcc', 'Subject'],
    ['subject', 'Support\u2028Bcc: victim@example.org', 'Subject'],
    ['name', 'Foo\tBar', 'Name'],
  ])('refuses a line break or control character inside %s (%j) with 422, and sends nothing', async (field, value, label) => {
    const attempts = setup.smtp!.attempts;
    const response = await setup.postForm({ ...VALID_CONTACT, [field]: value });
    expect(response.status).toBe(422);
    expect(response.body).toEqual(invalid(field, label));
    expect(setup.smtp!.attempts).toBe(attempts);
  });

  it('strips line breaks around a one-line field, so none reaches a header', async () => {
    const before = setup.smtp!.received.length;
    const response = await setup.postJson({ contact: { ...VALID_CONTACT, email: 'foo@example.com\r\n', subject: '\nSupport\r\n' } });
    expect(response.status).toBe(200);
    const [mail] = (await setup.smtp!.mails(before + 1)).slice(before);
    expect(mail!.subject).toBe('Weather API Contact Message from foo@example.com');
    expect(mail!.text).toContain('Email: foo@example.com\nAPI: Example API\nSubject: Support\n');
    expect(setup.smtp!.headers[before]).toMatch(/^Reply-To: foo@example\.com$/im);
  });

  it('keeps the lines of the message in the body, where they cannot become headers', async () => {
    const before = setup.smtp!.received.length;
    const message = 'Hello\r\nBcc: victim@example.org\r\n\r\nThanks';
    expect((await setup.postForm({ ...VALID_CONTACT, message })).status).toBe(200);
    await setup.smtp!.mails(before + 1);
    expect(setup.smtp!.headers[before]).not.toMatch(/victim/);
    expect(setup.smtp!.received[before]!.text).toContain('\n\nHello\nBcc: victim@example.org\n\nThanks\n\n');
  });
});

describe('one error per field', () => {
  it('reports only the first rule each field breaks, as API Umbrella does', async () => {
    const response = await setup.postForm({ name: '', email: '', api: '<script', subject: 'x', message: '1' });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((error: { full_message: string }) => error.full_message)).toEqual(['Name: Provide your name.', 'Email: Provide your email address.', 'API: is invalid', 'Message: is invalid']);
  });
});
