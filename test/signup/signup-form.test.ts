// The signup form at /signup/: labels, CSRF, validation messages next to the
// fields with the values kept, and the key on the success page.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseApiBackend } from '../../src/api-backends/validate.js';
import { openSignupForm, startSignupApp, submitSignup, keyOnPage, VALID_SIGNUP, type SignupApp } from './signup-app.js';

let running: SignupApp;
beforeEach(async () => {
  running = await startSignupApp();
});
afterEach(async () => {
  await running.close();
});

describe('GET /signup/', () => {
  it('shows every labelled field, the terms checkbox, the Sign up button and a CSRF token', async () => {
    const response = await running.app.inject({ method: 'GET', url: '/signup/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    for (const label of ['First name', 'Last name', 'Email', 'Website (optional)', 'How will you use the APIs? (optional)']) {
      expect(response.body).toContain(`>${label}</label>`);
    }
    expect(response.body).toMatch(/I have read and agree to the <a href="\/signup\/terms\/"[^>]*>terms and conditions<\/a>/);
    expect(response.body).toContain('<button type="submit">Sign up</button>');
    expect(response.body).toMatch(/<input type="hidden" name="_csrf" value="[^"]{20,}">/);
    expect(response.headers['set-cookie']).toMatch(/parasol_csrf=.*HttpOnly/);
  });

  it("labels the terms checkbox with API Umbrella's sentence, final period included, the link kept", async () => {
    const response = await running.app.inject({ method: 'GET', url: '/signup/' });
    expect(response.body).toMatch(/I have read and agree to the <a href="\/signup\/terms\/"[^>]*>terms and conditions<\/a>\.\s*<\/label>/);
  });

  it('links the configured terms and conditions, or shows built-in ones', async () => {
    const builtIn = await running.app.inject({ method: 'GET', url: '/signup/terms/' });
    expect(builtIn.statusCode).toBe(200);
    expect(builtIn.body).toContain('<h1>Terms and conditions</h1>');

    const configured = await startSignupApp({ signup: { terms_url: 'https://example.com/terms?a=1&b=2' } });
    try {
      const form = await configured.app.inject({ method: 'GET', url: '/signup/' });
      expect(form.body).toContain('href="https://example.com/terms?a=1&amp;b=2"');
    } finally {
      await configured.close();
    }
  });

  it('redirects /signup to /signup/', async () => {
    const response = await running.app.inject({ method: 'GET', url: '/signup' });
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe('/signup/');
  });
});

describe('POST /signup/', () => {
  it('shows the new key once, with examples of the three ways to pass it, and stores only a web signup without roles', async () => {
    const response = await submitSignup(running.app, { ...VALID_SIGNUP, roles: 'admin', enabled: '0' }, { remoteAddress: '198.51.100.4' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('Your API key for <strong>ada@example.com</strong> is:');
    const key = keyOnPage(response.body)!;
    expect(key).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(response.body).toContain('<button type="button" class="secondary" data-copy="api-key" hidden>Copy</button>');
    expect(response.body).toContain(`curl -H &#39;X-Api-Key: ${key}&#39;`);
    expect(response.body).toContain(`?api_key=${key}`);
    expect(response.body).toContain(`curl -u &#39;${key}:&#39;`);

    const user = running.context.users.get(running.context.keyIndex.find(key)!.user.id);
    expect(user).toMatchObject({ email: 'ada@example.com', first_name: 'Ada', registration_source: 'web', roles: [], enabled: true });
    // Who signed up from where (the test client sends its own user agent, and no referer or origin).
    expect(user).toMatchObject({ registration_ip: '198.51.100.4', registration_user_agent: 'lightMyRequest', registration_referer: null, registration_origin: null });
  });

  it('gives a new, different key on every signup, also for the same email', async () => {
    const first = keyOnPage((await submitSignup(running.app, VALID_SIGNUP)).body);
    const second = keyOnPage((await submitSignup(running.app, VALID_SIGNUP)).body);
    expect(first).not.toBe(second);
    expect(running.context.users.countByEmail('ada@example.com')).toBe(2);
  });

  it('uses a published backend the new key may call in the examples', async () => {
    const { backends, publisher } = running.context;
    const backend = (name: string, frontendHost: string, prefix: string, settings: Record<string, unknown>) => {
      const parsed = parseApiBackend({ name, frontend_host: frontendHost, backend_host: 'example.org', servers: [{ host: '127.0.0.1', port: 9 }], url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }], settings });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      return backends.create(parsed.value, null);
    };
    const needsRole = backend('Internal', 'localhost', '/internal/', { required_roles: ['staff'] });
    const open = backend('Weather', 'api.example.com', '/weather/', {});
    publisher.publish([needsRole.id, open.id], null);

    const response = await submitSignup(running.app, VALID_SIGNUP);
    expect(response.body).toContain('for example to <strong>Weather</strong>');
    expect(response.body).toContain(`&#39;http://api.example.com/weather/?api_key=${keyOnPage(response.body)}&#39;`);
  });

  it('refuses a post without a valid CSRF token and gives the form back with the values kept', async () => {
    const session = await openSignupForm(running.app);
    const noToken = await running.app.inject({ method: 'POST', url: '/signup/', headers: { cookie: session.cookie }, payload: { ...VALID_SIGNUP } });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.body).toContain('This form had expired.');
    expect(noToken.body).toContain('value="ada@example.com"');
    const noCookie = await running.app.inject({ method: 'POST', url: '/signup/', payload: { ...VALID_SIGNUP, _csrf: session.csrfToken } });
    expect(noCookie.statusCode).toBe(403);
    expect(running.context.users.countByEmail('ada@example.com')).toBe(0);
  });
});

describe('validation', () => {
  const long = (length: number) => 'a'.repeat(length);
  const cases: [string, Record<string, string>, string, string][] = [
    ['a missing first name', { first_name: '' }, 'first_name', 'Provide your first name.'],
    ['a blank last name', { last_name: '   ' }, 'last_name', 'Provide your last name.'],
    ['a missing email', { email: '' }, 'email', 'Provide your email address.'],
    ['an email without a domain', { email: 'ada@' }, 'email', 'Provide a valid email address.'],
    ['an email with spaces', { email: 'ada lovelace@example.com' }, 'email', 'Provide a valid email address.'],
    ['an unchecked terms box', { terms_and_conditions: '' }, 'terms_and_conditions', 'Check the box to agree to the terms and conditions.'],
    ['a first name of 81 characters', { first_name: long(81) }, 'first_name', 'First name is too long (maximum is 80 characters).'],
    ['a last name of 81 characters', { last_name: long(81) }, 'last_name', 'Last name is too long (maximum is 80 characters).'],
    ['an email of 256 characters', { email: `${long(244)}@example.com` }, 'email', 'Email is too long (maximum is 255 characters).'],
    ['a website of 256 characters', { website: `https://example.com/${long(236)}` }, 'website', 'Website is too long (maximum is 255 characters).'],
    ['a description of 2001 characters', { use_description: long(2001) }, 'use_description', 'The description is too long (maximum is 2000 characters).'],
    ['a first name with http', { first_name: 'http://spam.example' }, 'first_name', 'First name is invalid.'],
    ['a last name with www', { last_name: 'www.spam' }, 'last_name', 'Last name is invalid.'],
    ['a first name with <', { first_name: 'Ada <b>' }, 'first_name', 'First name is invalid.'],
    ['a last name with >', { last_name: 'x>' }, 'last_name', 'Last name is invalid.'],
    ['a first name with a line break', { first_name: 'Ada\nLovelace' }, 'first_name', 'First name is invalid.'],
    ['a website that is not a URL', { website: 'not a url' }, 'website', 'Website must be a valid URL in the form of http://example.com.'],
  ];

  it.each(cases)('shows the message for %s next to the field, values kept', async (_name, change, field, message) => {
    const response = await submitSignup(running.app, { ...VALID_SIGNUP, ...change });
    expect(response.statusCode).toBe(422);
    expect(response.body).toMatch(new RegExp(`<small id="f-${field}-error" class="field-error">${escapeRegExp(message)}</small>`));
    expect(response.body).toMatch(new RegExp(`id="f-${field}"[^>]*aria-invalid="true"`));
    const kept = { ...VALID_SIGNUP, ...change };
    for (const name of ['first_name', 'last_name', 'email', 'website'] as const) expect(response.body).toContain(`value="${escapeHtml(kept[name])}"`);
    expect(keyOnPage(response.body)).toBeNull();
    expect(running.context.users.list().total).toBe(0);
  });

  it('accepts the boundary lengths and an empty website and description', async () => {
    const response = await submitSignup(running.app, { ...VALID_SIGNUP, first_name: long(80), website: '', use_description: long(2000) });
    expect(response.statusCode).toBe(200);
  });

  it('keeps every entered value, escaped, and the ticked box', async () => {
    const response = await submitSignup(running.app, { ...VALID_SIGNUP, email: '"><script>x</script>', use_description: '</textarea><script>alert(1)</script>' });
    expect(response.statusCode).toBe(422);
    expect(response.body).not.toContain('<script>');
    expect(response.body).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(response.body).toContain('&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;</textarea>');
    expect(response.body).toContain('value="Ada"');
    expect(response.body).toMatch(/name="terms_and_conditions" type="checkbox" value="1" checked/);
  });

  it('answers a form too large to read with the page and a message, not JSON', async () => {
    const response = await running.app.inject({
      method: 'POST',
      url: '/signup/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `use_description=${'x'.repeat(2 * 1024 * 1024)}`,
    });
    expect(response.statusCode).toBe(413);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('The form was too large to read.');
  });

  it('lists every problem at once', async () => {
    const response = await submitSignup(running.app, {});
    for (const message of ['Provide your first name.', 'Provide your last name.', 'Provide your email address.', 'Check the box to agree to the terms and conditions.']) {
      expect(response.body).toContain(message);
    }
  });
});

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
