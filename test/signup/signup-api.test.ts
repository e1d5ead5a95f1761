// POST /api-umbrella/v1/users(.json): who may create keys, API Umbrella's
// response shapes, and CORS for embedded signup forms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { superuserToken } from '../helpers/admin-api.js';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import { apiUserInput } from '../helpers/users.js';
import { startSignupApp, VALID_SIGNUP, type SignupApp } from './signup-app.js';

let running: SignupApp;
let adminToken: string;
let keyCreatorKey: string;
let plainKey: string;
let disabledKeyCreatorKey: string;
let expiredKeyCreatorKey: string;

function createUser(email: string, roles: string[], enabled = true, expiresAt: string | null = null): string {
  return running.context.users.create(
    apiUserInput({ email, first_name: 'Key', last_name: 'Owner', roles, enabled, expires_at: expiresAt }),
    null,
  ).apiKey;
}

beforeAll(async () => {
  // Generous limits: this file is about auth and shapes; the per-IP limit has its own test.
  running = await startSignupApp({ signup: { rate_limit_per_minute: 1000, rate_limit_per_hour: 1000 } });
  adminToken = await superuserToken(running.context, 'admin@example.com');
  keyCreatorKey = createUser('embed@example.com', [KEY_CREATOR_ROLE]);
  plainKey = createUser('plain@example.com', []);
  disabledKeyCreatorKey = createUser('old-embed@example.com', [KEY_CREATOR_ROLE], false);
  expiredKeyCreatorKey = createUser('ended-embed@example.com', [KEY_CREATOR_ROLE], true, '2001-01-01T00:00:00.000Z');
});
afterAll(async () => {
  await running.close();
});

function post(headers: Record<string, string>, payload: unknown, url = '/api-umbrella/v1/users') {
  return running.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
}

describe('authentication', () => {
  it.each([
    ['no credentials', {}],
    ['a key without the key-creator role', () => ({ 'x-api-key': plainKey })],
    ['a disabled key-creator key', () => ({ 'x-api-key': disabledKeyCreatorKey })],
    ['an expired key-creator key', () => ({ 'x-api-key': expiredKeyCreatorKey })],
    ['an unknown key', { 'x-api-key': 'x'.repeat(40) }],
    ['a wrong admin token', { 'x-admin-auth-token': 'y'.repeat(40) }],
  ])('answers 401 to %s, with CORS', async (_name, headers) => {
    const response = await post(typeof headers === 'function' ? headers() : headers, { user: VALID_SIGNUP });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'You need to sign in or sign up before continuing.' });
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  it("records who signed up from where, as API Umbrella does, and shows it to admins only", async () => {
    const requester = {
      // A hop's port is not part of the client's address.
      'x-forwarded-for': '1.1.1.1, 2.2.2.2:50312, 127.0.0.1',
      'user-agent': Buffer.from('Mozilla/5.0 (é)').toString('latin1'),
      referer: 'https://example.com/foo',
      origin: 'https://example.com',
    };
    const byAdmin = await post({ 'x-admin-auth-token': adminToken, ...requester }, { user: { ...VALID_SIGNUP, email: 'from-admin@example.com' } });
    expect(byAdmin.json().user).toMatchObject({
      registration_ip: '2.2.2.2',
      registration_user_agent: 'Mozilla/5.0 (é)',
      registration_referer: 'https://example.com/foo',
      registration_origin: 'https://example.com',
    });
    const byKey = await post({ 'x-api-key': keyCreatorKey, ...requester }, { user: { ...VALID_SIGNUP, email: 'from-embed@example.com' } });
    expect(byKey.statusCode).toBe(201);
    expect(Object.keys(byKey.json().user).filter((field) => field.startsWith('registration_') && field !== 'registration_source')).toEqual([]);
    const stored = running.context.users.get(byKey.json().user.id)!;
    expect([stored.registration_ip, stored.registration_origin]).toEqual(['2.2.2.2', 'https://example.com']);
  });

  it("reads the user under \"user\", or a bare JSON object, as API Umbrella's Rails app does: a user of another type or bare form fields hold none", async () => {
    const key = { 'x-api-key': keyCreatorKey };
    const as = (email: string) => ({ ...VALID_SIGNUP, email });
    expect((await post(key, as('bare@example.com'))).statusCode).toBe(201);
    expect((await post(key, { ...as('null-user@example.com'), user: null })).statusCode).toBe(201);
    for (const user of ['', 0, []]) {
      const refused = await post(key, { ...as('typed@example.com'), user });
      expect([refused.statusCode, refused.json().errors.map((error: { field: string }) => error.field)], JSON.stringify(user)).toEqual([422, expect.arrayContaining(['email'])]);
    }
    for (const type of ['application/x-www-form-urlencoded', 'Application/X-WWW-Form-Urlencoded; charset=utf-8']) {
      const form = await running.app.inject({
        method: 'POST',
        url: '/api-umbrella/v1/users',
        headers: { ...key, 'content-type': type },
        payload: new URLSearchParams({ ...as('bare-form@example.com'), terms_and_conditions: '1' }).toString(),
      });
      expect(form.statusCode, type).toBe(422);
    }
  });

  it('creates a key for a key-creator key: 201 with the user and its api_key', async () => {
    const response = await post({ 'x-api-key': keyCreatorKey }, { user: { ...VALID_SIGNUP, email: 'new@example.com' } });
    expect(response.statusCode).toBe(201);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const { user } = response.json();
    expect(user).toMatchObject({ email: 'new@example.com', first_name: 'Ada', last_name: 'Lovelace', registration_source: 'api', roles: [], enabled: true });
    expect(user.api_key).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(running.context.keyIndex.find(user.api_key)?.user.id).toBe(user.id);
  });

  it('takes the key-creator key from the api_key parameter or the Basic username too, as API Umbrella\'s gateway does', async () => {
    const byQuery = await post({}, { user: { ...VALID_SIGNUP, email: 'by-query@example.com' } }, `/api-umbrella/v1/users.json?api_key=${keyCreatorKey}`);
    expect(byQuery.statusCode).toBe(201);
    const byBasic = await post({ authorization: `Basic ${Buffer.from(`${keyCreatorKey}:`).toString('base64')}` }, { user: { ...VALID_SIGNUP, email: 'by-basic@example.com' } });
    expect(byBasic.statusCode).toBe(201);
    const plainInQuery = await post({}, { user: VALID_SIGNUP }, `/api-umbrella/v1/users.json?api_key=${plainKey}`);
    expect(plainInQuery.statusCode).toBe(401);
  });

  it('creates a key for an admin token, and also answers on /users.json', async () => {
    const response = await post({ 'x-admin-auth-token': adminToken }, { user: { ...VALID_SIGNUP, email: 'by-admin@example.com' } }, '/api-umbrella/v1/users.json');
    expect(response.statusCode).toBe(201);
    expect(response.json().user.api_key).toMatch(/^[A-Za-z0-9]{40}$/);
  });
});

describe('what each caller may set', () => {
  it('ignores roles, settings, enabled and email_verified from a key-creator, so it cannot mint privileged keys', async () => {
    const response = await post(
      { 'x-api-key': keyCreatorKey },
      { user: { ...VALID_SIGNUP, roles: [KEY_CREATOR_ROLE, 'admin'], enabled: false, email_verified: true, settings: { rate_limit_mode: 'unlimited' } } },
    );
    expect(response.statusCode).toBe(201);
    expect(response.json().user).toMatchObject({ roles: [], enabled: true, email_verified: false, settings: { rate_limit_mode: null } });
  });

  it('lets an admin set roles, and does not require the terms box from an admin', async () => {
    const { terms_and_conditions: _terms, ...withoutTerms } = VALID_SIGNUP;
    const response = await post({ 'x-admin-auth-token': adminToken }, { user: { ...withoutTerms, roles: [KEY_CREATOR_ROLE] } });
    expect(response.statusCode).toBe(201);
    expect(response.json().user.roles).toEqual([KEY_CREATOR_ROLE]);
  });

  it('keeps the registration_source an embedded form sends', async () => {
    const response = await post({ 'x-api-key': keyCreatorKey }, { user: { ...VALID_SIGNUP, registration_source: 'partner-site' } });
    expect(response.json().user.registration_source).toBe('partner-site');
  });

  it('accepts the form-encoded user[field] body that embedded forms post', async () => {
    const body = new URLSearchParams({ 'user[first_name]': 'Grace', 'user[last_name]': 'Hopper', 'user[email]': 'grace@example.com', 'user[terms_and_conditions]': 'true' });
    const response = await running.app.inject({
      method: 'POST',
      url: '/api-umbrella/v1/users',
      headers: { 'x-api-key': keyCreatorKey, 'content-type': 'application/x-www-form-urlencoded' },
      payload: body.toString(),
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().user).toMatchObject({ first_name: 'Grace', email: 'grace@example.com' });
  });
});

describe('validation errors', () => {
  it.each([
    ['first_name', { first_name: '' }, 'Provide your first name.'],
    ['last_name', { last_name: '' }, 'Provide your last name.'],
    ['email', { email: '' }, 'Provide your email address.'],
    ['email', { email: 'not-an-email' }, 'Provide a valid email address.'],
    ['terms_and_conditions', { terms_and_conditions: false }, 'Check the box to agree to the terms and conditions.'],
    ['first_name', { first_name: 'a'.repeat(81) }, 'is too long (maximum is 80 characters)'],
    ['last_name', { last_name: 'www.example.com' }, 'is invalid'],
    ['website', { website: 'nope' }, 'must be a valid URL in the form of http://example.com'],
    ['use_description', { use_description: 'a'.repeat(2001) }, 'is too long (maximum is 2000 characters)'],
  ])('answers 422 INVALID_INPUT for %s: %s', async (field, change, message) => {
    const response = await post({ 'x-api-key': keyCreatorKey }, { user: { ...VALID_SIGNUP, ...change } });
    expect(response.statusCode).toBe(422);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const { errors } = response.json();
    expect(errors).toEqual([{ code: 'INVALID_INPUT', field, message, full_message: expect.stringContaining(message) }]);
  });

  it('answers 400 with CORS to malformed JSON', async () => {
    const response = await running.app.inject({
      method: 'POST',
      url: '/api-umbrella/v1/users',
      headers: { 'x-api-key': keyCreatorKey, 'content-type': 'application/json' },
      payload: '{"user":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('CORS preflight', () => {
  it.each(['/api-umbrella/v1/users', '/api-umbrella/v1/users.json'])('OPTIONS %s → 204 with the allowed headers and methods', async (url) => {
    const response = await running.app.inject({ method: 'OPTIONS', url, headers: { origin: 'https://partner.example', 'access-control-request-method': 'POST' } });
    expect(response.statusCode).toBe(204);
    expect(response.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'Content-Type, X-Api-Key',
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-max-age': '600',
    });
    expect(response.body).toBe('');
  });

  it('leaves the admin API users list behind its admin token', async () => {
    const response = await running.app.inject({ method: 'GET', url: '/api-umbrella/v1/users', headers: { 'x-api-key': keyCreatorKey } });
    expect(response.statusCode).toBe(401);
  });
});

describe('the options of API Umbrella\'s embeddable signup form', () => {
  it('answers the options its script reads, with the key filled into example_api_url (escaped for its HTML)', async () => {
    const response = await post(
      { 'x-api-key': keyCreatorKey },
      { user: { ...VALID_SIGNUP, email: 'embedded-form@example.com' }, options: { send_welcome_email: true, example_api_url: 'https://api.example.com/x.json?api_key={{api_key}}&a=<b>', verify_email: false } },
    );
    expect(response.statusCode).toBe(201);
    const { user, options } = response.json();
    expect(options).toEqual({
      contact_url: 'http://localhost:80/contact/',
      site_name: 'Parasol',
      send_welcome_email: true,
      example_api_url: `https://api.example.com/x.json?api_key=${user.api_key}&a=<b>`,
      example_api_url_formatted_html: `https://api.example.com/x.json?<strong>api_key=${user.api_key}</strong>&amp;a=&lt;b&gt;`,
    });
  });

  it('reads an option nested 10,000 lists deep as not asked for, where reading it overflowed the stack (500)', async () => {
    // Sent as text: serialising it here would overflow this stack too.
    const deep = `${'['.repeat(10_000)}"true"${']'.repeat(10_000)}`;
    for (const name of ['send_welcome_email', 'verify_email', 'send_notify_email']) {
      const user = JSON.stringify({ ...VALID_SIGNUP, email: `deep-${name}@example.com` });
      const payload = `{"user":${user},"options":{"${name}":${deep}}}`;
      const response = await running.app.inject({ method: 'POST', url: '/api-umbrella/v1/users', headers: { 'x-api-key': keyCreatorKey, 'content-type': 'application/json' }, payload });
      expect(response.statusCode, name).toBe(201);
    }
  });

  it('answers contact_url and site_name when no options are sent, also to an admin; an example URL that is not http(s) is left out', async () => {
    const plain = await post({ 'x-admin-auth-token': adminToken }, { user: { ...VALID_SIGNUP, email: 'no-options@example.com' } });
    expect(plain.json().options).toEqual({ contact_url: 'http://localhost:80/contact/', site_name: 'Parasol' });
    const scripted = await post({ 'x-api-key': keyCreatorKey }, { user: VALID_SIGNUP, options: { example_api_url: 'javascript:alert(1)//{{api_key}}' } });
    expect(scripted.json().options).toEqual({ contact_url: 'http://localhost:80/contact/', site_name: 'Parasol' });
  });

  it.each([
    [true, true],
    ['true', true],
    [false, false],
    [1, false],
    ['1', false],
    [['true'], false],
  ])('reads send_welcome_email %j as %j, as API Umbrella does', async (value, expected) => {
    const response = await post({ 'x-admin-auth-token': adminToken }, { user: { ...VALID_SIGNUP, email: 'welcome-option@example.com' }, options: { send_welcome_email: value } });
    expect(response.json().options.send_welcome_email).toBe(expected);
  });

  it('reads the options of a form-encoded body too', async () => {
    const body = new URLSearchParams({ 'user[first_name]': 'Grace', 'user[last_name]': 'Hopper', 'user[email]': 'grace@example.com', 'user[terms_and_conditions]': 'true', 'options[send_welcome_email]': 'true' });
    const response = await running.app.inject({
      method: 'POST',
      url: '/api-umbrella/v1/users.json',
      headers: { 'x-api-key': keyCreatorKey, 'content-type': 'application/x-www-form-urlencoded' },
      payload: body.toString(),
    });
    expect(response.json().options).toMatchObject({ send_welcome_email: true, site_name: 'Parasol' });
  });
});
