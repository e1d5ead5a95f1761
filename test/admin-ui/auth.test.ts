import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { PARASOL_VERSION } from '../../src/lib/parasol-version.js';
import { AdminClient, createAdmin, PASSWORD, startAdminApp, textOf, type AdminApp } from './helpers/admin-client.js';

let running: AdminApp | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

async function start(overrides: Record<string, unknown> = {}, clock?: ManualClock) {
  running = await startAdminApp(overrides, clock === undefined ? {} : { clock });
  return { ...running, client: new AdminClient(running.app) };
}

function sessionCookie(response: { cookies: unknown[] }) {
  return (response.cookies as { name: string; value: string; httpOnly?: boolean; sameSite?: string; secure?: boolean; path?: string }[]).find(
    (cookie) => cookie.name === 'parasol_admin_session',
  );
}

describe('first admin account', () => {
  it('sends /admin/ to "Create the first admin account" while there is no admin', async () => {
    const { client } = await start();
    const index = await client.get('/admin/');
    expect(index.statusCode).toBe(303);
    expect(index.headers.location).toBe('/admin/setup');
    const page = await client.follow(index);
    const text = textOf(page.body);
    expect(text).toContain('Create the first admin account');
    for (const label of ['Email', 'Password', 'Password Confirmation']) expect(page.body).toContain(`>${label}</label>`);
    expect(page.body).toMatch(/<button type="submit">Sign up<\/button>/);
  });

  it('creates a superuser and signs it in', async () => {
    const { client, context } = await start();
    await client.get('/admin/setup');
    const created = await client.post('/admin/setup', { email: 'ops@example.com', password: PASSWORD, password_confirmation: PASSWORD });
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toBe('/admin/apis');
    expect(sessionCookie(created)).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/admin' });
    // A browser-session cookie: the server ends the session, the browser forgets it when it closes.
    expect(sessionCookie(created)).not.toHaveProperty('maxAge');
    expect(sessionCookie(created)).not.toHaveProperty('expires');
    expect(context.admins.findByEmail('ops@example.com')).toMatchObject({ superuser: true, enabled: true });
    // Recorded as a sign-in: Admin Accounts offers them no invite.
    expect(context.admins.findByEmail('ops@example.com')!.current_sign_in_at).not.toBeNull();
    const page = await client.follow(created);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Your admin account is ready');
  });

  it('keeps the email and explains a password that is too short or does not match', async () => {
    const { client, context } = await start();
    await client.get('/admin/setup');
    const short = await client.post('/admin/setup', { email: 'ops@example.com', password: 'short', password_confirmation: 'short' });
    expect(short.statusCode).toBe(422);
    expect(textOf(short.body)).toContain('is too short (minimum is 14 characters)');
    expect(short.body).toContain('value="ops@example.com"');
    const mismatch = await client.post('/admin/setup', { email: 'ops@example.com', password: PASSWORD, password_confirmation: `${PASSWORD}!` });
    expect(textOf(mismatch.body)).toContain("doesn't match Password");
    // Both problems at once, not one per try.
    const both = textOf((await client.post('/admin/setup', { email: 'ops@example.com', password: 'short', password_confirmation: 'other' })).body);
    expect([both.includes('is too short (minimum is 14 characters)'), both.includes("doesn't match Password")]).toEqual([true, true]);
    expect(context.admins.count()).toBe(0);
  });

  it('refuses GET and POST once an admin exists, with "An initial admin account already exists."', async () => {
    const { client, context } = await start();
    await client.get('/admin/setup');
    await createAdmin(context);
    const attempts = [() => client.get('/admin/setup'), () => client.post('/admin/setup', { email: 'x@example.com', password: PASSWORD, password_confirmation: PASSWORD })];
    for (const attempt of attempts) {
      const response = await attempt();
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/admin/login');
      expect(textOf((await client.follow(response)).body)).toContain('An initial admin account already exists.');
    }
    expect(context.admins.count()).toBe(1);
  });

  it('lets exactly one of two simultaneous submits create the first admin', async () => {
    const { app, context } = await start();
    const first = new AdminClient(app);
    const second = new AdminClient(app);
    await first.get('/admin/setup');
    await second.get('/admin/setup');
    const [a, b] = await Promise.all([
      first.post('/admin/setup', { email: 'first@example.com', password: PASSWORD, password_confirmation: PASSWORD }),
      second.post('/admin/setup', { email: 'second@example.com', password: PASSWORD, password_confirmation: PASSWORD }),
    ]);
    expect(context.admins.count()).toBe(1);
    const winners = [a, b].filter((response) => response.headers.location === '/admin/apis');
    const losers = [a, b].filter((response) => response.headers.location === '/admin/login');
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(sessionCookie(losers[0]!)).toBeUndefined();
  });
});

describe("API Umbrella's addresses", () => {
  it('sends the pages before sign-in to Parasol\'s, with their query', async () => {
    const { client } = await start();
    const moved = async (url: string) => {
      const response = await client.get(url);
      return [response.statusCode, response.headers.location];
    };
    expect(await moved('/admins/signup')).toEqual([301, '/admin/setup']);
    expect(await moved('/admins/password/new')).toEqual([301, '/admin/password/new']);
    expect(await moved('/admins/password/edit?invite=true&reset_password_token=abc')).toEqual([301, '/admin/password/edit?invite=true&reset_password_token=abc']);
  });
});

describe('sign in and out', () => {
  it('signs in with Email and Password, with a new session id each time', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    const login = await client.get('/admin/login');
    for (const label of ['Email', 'Password']) expect(login.body).toContain(`>${label}</label>`);
    expect(login.body).toContain('>Sign in</button>');
    const first = await client.post('/admin/login', { email: 'ops@example.com', password: PASSWORD });
    expect(first.statusCode).toBe(303);
    const firstId = sessionCookie(first)!.value;
    const again = await client.signIn();
    const secondId = sessionCookie(again)!.value;
    expect(secondId).not.toBe(firstId);
    // The session signed in over is gone.
    const stale = await running!.app.inject({ url: '/admin/apis', cookies: { parasol_admin_session: firstId } });
    expect(stale.statusCode).toBe(303);
    expect((await client.get('/admin/apis')).statusCode).toBe(200);
  });

  it("shows the running Parasol's version on the admin's pages, not on the sign-in page", async () => {
    const { client, context } = await start();
    await createAdmin(context);
    const footer = (body: string) => textOf(/<footer[^]*<\/footer>/.exec(body)![0]);
    expect(footer((await client.get('/admin/login')).body)).not.toContain(`Parasol ${PARASOL_VERSION}`);
    await client.signIn();
    expect(footer((await client.get('/admin/apis')).body)).toContain(`Parasol ${PARASOL_VERSION}`);
  });

  it('marks the session cookie Secure when the admin is reached over HTTPS', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    await client.get('/admin/login');
    const response = await client.post('/admin/login', { email: 'ops@example.com', password: PASSWORD }, { 'x-forwarded-proto': 'https' });
    expect(sessionCookie(response)).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
    const plain = await client.signIn();
    expect(sessionCookie(plain)!.secure).toBeFalsy();
  });

  it('answers a wrong password and an unknown email with the same generic message', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    const wrong = await client.signIn('ops@example.com', 'not the password at all');
    const unknown = await client.signIn('nobody@example.com', PASSWORD);
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401);
      expect(textOf(response.body)).toContain('Invalid email or password.');
      expect(sessionCookie(response)).toBeUndefined();
    }
  });

  it('refuses a disabled admin', async () => {
    const { client, context } = await start();
    const admin = await createAdmin(context, 'ops@example.com');
    await createAdmin(context, 'other@example.com');
    context.admins.update(admin.id, { enabled: false });
    expect((await client.signIn()).statusCode).toBe(401);
  });

  it('refuses an admin disabled while their password was being verified (which may wait its turn)', async () => {
    const { context } = await start();
    const admin = await createAdmin(context, 'ops@example.com');
    await createAdmin(context, 'other@example.com');
    const signingIn = context.admins.authenticate('ops@example.com', PASSWORD, '192.0.2.1');
    context.admins.update(admin.id, { enabled: false });
    expect(await signingIn).toBeNull();
  });

  it('returns to the page asked for, but never to another site', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    const guarded = await client.get('/admin/api_users?search=x');
    expect(guarded.headers.location).toBe('/admin/login?next=%2Fadmin%2Fapi_users%3Fsearch%3Dx');
    await client.follow(guarded);
    const back = await client.post('/admin/login', { email: 'ops@example.com', password: PASSWORD, next: '/admin/api_users?search=x' });
    expect(back.headers.location).toBe('/admin/api_users?search=x');
    for (const next of ['https://evil.example/', '//evil.example/', '/admin//evil.example', '/elsewhere', '/admin/logout']) {
      await client.get('/admin/login');
      expect((await client.post('/admin/login', { email: 'ops@example.com', password: PASSWORD, next })).headers.location).toBe('/admin/');
    }
  });

  it('signs out: the session stops working', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    await client.signIn();
    const id = client.cookies.get('parasol_admin_session')!;
    await client.get('/admin/apis');
    const out = await client.post('/admin/logout');
    expect(out.headers.location).toBe('/admin/login');
    expect(textOf((await client.follow(out)).body)).toContain('You have been signed out.');
    const reused = await running!.app.inject({ url: '/admin/apis', cookies: { parasol_admin_session: id } });
    expect(reused.statusCode).toBe(303);
  });
});

describe('GET /admin/logout (a typed or bookmarked address)', () => {
  it('asks signed in, with a button that signs out; signed out, it leads to sign in', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    expect((await client.get('/admin/logout')).headers.location).toBe('/admin/login');
    await client.signIn();
    const asked = await client.get('/admin/logout');
    expect(asked.statusCode).toBe(200);
    expect(textOf(asked.body)).toContain('Sign out?');
    expect(asked.body).toMatch(/<form method="post" action="\/admin\/logout"/);
    expect((await client.get('/admin/apis')).statusCode).toBe(200);
    const out = await client.post('/admin/logout');
    expect(out.headers.location).toBe('/admin/login');
    expect((await client.get('/admin/apis')).statusCode).toBe(303);
  });
});

describe('session expiry', () => {
  it('ends a session left idle longer than admin.session_idle_timeout_minutes', async () => {
    const clock = new ManualClock();
    const { client, context } = await start({ admin: { session_idle_timeout_minutes: 30 } }, clock);
    await createAdmin(context);
    await client.signIn();
    clock.advance(29 * 60_000);
    expect((await client.get('/admin/apis')).statusCode).toBe(200);
    clock.advance(29 * 60_000);
    expect((await client.get('/admin/apis')).statusCode).toBe(200);
    clock.advance(31 * 60_000);
    expect((await client.get('/admin/apis')).statusCode).toBe(303);
  });

  it('ends any session older than admin.session_max_age_hours, however active', async () => {
    const clock = new ManualClock();
    const { client, context } = await start({ admin: { session_idle_timeout_minutes: 60, session_max_age_hours: 2 } }, clock);
    await createAdmin(context);
    await client.signIn();
    for (let step = 0; step < 3; step++) {
      clock.advance(40 * 60_000);
      expect((await client.get('/admin/apis')).statusCode).toBe(200);
    }
    clock.advance(1 * 60_000 + 1);
    expect((await client.get('/admin/apis')).statusCode).toBe(303);
  });

  it('keeps a session that was used while the clock was stepped back (the request does not move its last use back)', async () => {
    const clock = new ManualClock();
    const { client, context } = await start({ admin: { session_idle_timeout_minutes: 30 } }, clock);
    await createAdmin(context);
    await client.signIn();
    clock.advance(-24 * 3_600_000);
    expect((await client.get('/admin/apis')).statusCode).toBe(200);
    clock.advance(24 * 3_600_000 + 60_000);
    expect((await client.get('/admin/apis')).statusCode).toBe(200);
  });
});

describe('a session that ended', () => {
  const IDLE = { admin: { session_idle_timeout_minutes: 30 } };
  const ENDED = 'Your session ended. Sign in again.';
  const NOT_SAVED = 'Your session ended. Sign in again; what you were saving was not saved.';

  async function idleTooLong() {
    const clock = new ManualClock();
    const started = await start(IDLE, clock);
    await createAdmin(started.context);
    await started.client.signIn();
    return { ...started, idle: () => clock.advance(31 * 60_000) };
  }

  it('answers a form sent after it with "not saved" (once), and sign-in leads to the start: the page it was on is not known', async () => {
    const { client, idle } = await idleTooLong();
    await client.get('/admin/apis/new');
    idle();
    const saved = await client.post('/admin/apis', { name: 'Typed for an hour' }, { referer: 'http://localhost/admin/apis/new' });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/admin/login?expired=1');
    const login = await client.follow(saved);
    const text = textOf(login.body);
    expect(text).toContain(NOT_SAVED);
    expect(text.split('Your session ended').length - 1).toBe(1);
    const back = await client.post('/admin/login', { email: 'ops@example.com', password: PASSWORD, next: '/admin/' });
    expect(back.headers.location).toBe('/admin/');
    expect(textOf((await client.get('/admin/apis')).body)).not.toContain('Typed for an hour');
  });

  it('sends a page asked for after it to sign in, saying so, and back to that page', async () => {
    const { client, idle } = await idleTooLong();
    idle();
    const page = await client.get('/admin/api_users?search=x');
    expect(page.headers.location).toBe('/admin/login?expired=1&next=%2Fadmin%2Fapi_users%3Fsearch%3Dx');
    const text = textOf((await client.follow(page)).body);
    expect(text).toContain(ENDED);
    expect(text).not.toContain('not saved');
  });

  it('says nothing on a first visit, without a session cookie', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    const page = await client.get('/admin/apis');
    expect(page.headers.location).toBe('/admin/login?next=%2Fadmin%2Fapis');
    expect(textOf((await client.follow(page)).body)).not.toContain('session ended');
  });

  it('answers a form sent after signing out in another tab (the cookie gone) with "not saved" too', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    await client.signIn();
    await client.get('/admin/apis/new');
    client.cookies.delete('parasol_admin_session');
    const saved = await client.post('/admin/apis', { name: 'X' });
    expect(saved.headers.location).toBe('/admin/login?expired=1');
    expect(textOf((await client.follow(saved)).body)).toContain(NOT_SAVED);
  });
});

describe('lockout after repeated failed sign-ins', () => {
  const settings = { admin: { login_max_failures: 3, login_lockout_minutes: 10 } };

  it('locks the account, even for the right password, until the lockout has passed', async () => {
    const clock = new ManualClock();
    const { app, context } = await start(settings, clock);
    await createAdmin(context);
    // Each attempt from another IP: this is the per-account limit.
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await new AdminClient(app, `10.0.0.${attempt + 1}`).signIn('ops@example.com', 'wrong password, try again')).statusCode).toBe(401);
    }
    const locked = await new AdminClient(app, '10.0.0.9').signIn('OPS@example.com', PASSWORD);
    expect(locked.statusCode).toBe(429);
    expect(textOf(locked.body)).toContain('Too many failed sign-in attempts. Try again in 10 minutes.');
    clock.advance(20 * 60_000);
    expect((await new AdminClient(app, '10.0.0.9').signIn('ops@example.com', PASSWORD)).statusCode).toBe(303);
  });

  it('holds a lock for the whole lockout from the failure that set it, whatever the clock reads, saying how long is left', async () => {
    const clock = new ManualClock(Date.parse('2026-11-29T09:59:50Z'));
    const { app, context } = await start(settings, clock);
    await createAdmin(context);
    const client = new AdminClient(app, '10.3.0.1');
    for (let attempt = 0; attempt < 3; attempt++) expect((await client.signIn('ops@example.com', 'wrong password, try again')).statusCode).toBe(401);
    // Past a ten-minute boundary of the epoch (10:00), where a sliding-window estimate began to fade.
    clock.advance(2 * 60_000);
    const locked = await new AdminClient(app, '10.3.0.2').signIn('ops@example.com', PASSWORD);
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBe('480');
    expect(textOf(locked.body)).toContain('Too many failed sign-in attempts. Try again in 8 minutes.');
    clock.advance(8 * 60_000 - 1_000);
    expect(textOf((await new AdminClient(app, '10.3.0.2').signIn('ops@example.com', PASSWORD)).body)).toContain('Try again in 1 minute.');
    clock.advance(1_000);
    expect((await new AdminClient(app, '10.3.0.2').signIn('ops@example.com', PASSWORD)).statusCode).toBe(303);
  });

  it('allows no more than login_max_failures failures in any lockout window', async () => {
    const clock = new ManualClock(Date.parse('2026-11-29T09:55:00Z'));
    const { app, context } = await start(settings, clock);
    await createAdmin(context);
    const failedAt: number[] = [];
    // A guess every 20 s for an hour whenever the account is not locked, each from a new address.
    for (let guess = 0; guess < 180; guess++) {
      const tried = await new AdminClient(app, `10.4.0.${guess}`).signIn('ops@example.com', 'wrong password, try again');
      if (tried.statusCode === 401) failedAt.push(clock.now());
      clock.advance(20_000);
    }
    const mostInAWindow = Math.max(...failedAt.map((start) => failedAt.filter((at) => at >= start && at < start + 10 * 60_000).length));
    expect(mostInAWindow).toBe(3);
  });

  it("clears the account's failures on a successful sign-in, and not the IP's", async () => {
    const { app, context } = await start(settings);
    await createAdmin(context);
    const typo = (ip: string) => new AdminClient(app, ip).signIn('ops@example.com', 'wrong password, try again');
    // Two failures, a sign-in, then two more failures from other IPs: the account is not locked.
    for (const ip of ['10.2.0.1', '10.2.0.2']) expect((await typo(ip)).statusCode).toBe(401);
    expect((await new AdminClient(app, '10.2.0.3').signIn('ops@example.com', PASSWORD)).statusCode).toBe(303);
    for (const ip of ['10.2.0.4', '10.2.0.5']) expect((await typo(ip)).statusCode).toBe(401);
    expect((await new AdminClient(app, '10.2.0.6').signIn('ops@example.com', PASSWORD)).statusCode).toBe(303);
    // From one IP, a sign-in in between leaves that IP's failures counted.
    const client = new AdminClient(app, '10.2.0.7');
    await client.signIn('ops@example.com', 'wrong password, try again');
    await client.signIn('ops@example.com', 'wrong password, try again');
    expect((await new AdminClient(app, '10.2.0.7').signIn('ops@example.com', PASSWORD)).statusCode).toBe(303);
    expect((await typo('10.2.0.7')).statusCode).toBe(401);
    expect((await new AdminClient(app, '10.2.0.7').signIn('ops@example.com', PASSWORD)).statusCode).toBe(429);
  });

  it('locks an IP that tries many accounts, and only that IP', async () => {
    const { app, context } = await start(settings);
    await createAdmin(context);
    const attacker = new AdminClient(app, '192.0.2.7');
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) expect((await attacker.signIn(email, PASSWORD)).statusCode).toBe(401);
    expect((await attacker.signIn('ops@example.com', PASSWORD)).statusCode).toBe(429);
    expect((await new AdminClient(app, '192.0.2.8').signIn('ops@example.com', PASSWORD)).statusCode).toBe(303);
  });

  it('counts an IPv6 client by its /64: addresses in one /64 share the lockout, another /64 does not', async () => {
    const { app, context } = await start(settings);
    await createAdmin(context);
    // Three guesses at three accounts, each from another address of one /64 (as a client holding it may pick).
    for (const [host, email] of [['1', 'a@example.com'], ['2', 'b@example.com'], ['ab:cdef', 'c@example.com']] as const) {
      expect((await new AdminClient(app, `2001:db8:0:1::${host}`).signIn(email, PASSWORD)).statusCode).toBe(401);
    }
    const sameNetwork = await new AdminClient(app, '2001:DB8:0:1:ffff:ffff:ffff:ffff').signIn('ops@example.com', PASSWORD);
    expect(sameNetwork.statusCode).toBe(429);
    expect(textOf(sameNetwork.body)).toContain('Too many failed sign-in attempts.');
    expect((await new AdminClient(app, '2001:db8:0:2::1').signIn('ops@example.com', PASSWORD)).statusCode).toBe(303);
  });

  it('counts IPv4 clients per address, an IPv4-mapped IPv6 address as its IPv4', async () => {
    const { app, context } = await start(settings);
    await createAdmin(context);
    const guess = (client: AdminClient, email: string, headers: Record<string, string> = {}) =>
      client.get('/admin/login').then(() => client.post('/admin/login', { email, password: PASSWORD }, headers));
    expect((await guess(new AdminClient(app, '192.0.2.7'), 'a@example.com')).statusCode).toBe(401);
    expect((await guess(new AdminClient(app, '192.0.2.7'), 'b@example.com')).statusCode).toBe(401);
    // From a trusted proxy (loopback), named as a dual-stack socket names an IPv4 client.
    expect((await guess(new AdminClient(app), 'c@example.com', { 'x-forwarded-for': '::ffff:192.0.2.7' })).statusCode).toBe(401);
    expect((await guess(new AdminClient(app, '192.0.2.7'), 'ops@example.com')).statusCode).toBe(429);
    expect((await guess(new AdminClient(app, '192.0.2.6'), 'ops@example.com')).statusCode).toBe(303);
  });

  it('gives simultaneous guesses no more tries than one after another', async () => {
    const { app, context } = await start(settings);
    await createAdmin(context);
    const guesses = await Promise.all(
      Array.from({ length: 12 }, async (_, attempt) => {
        const client = new AdminClient(app, `10.1.0.${attempt + 1}`);
        await client.get('/admin/login');
        return client.post('/admin/login', { email: 'ops@example.com', password: `guess number ${attempt} of many` });
      }),
    );
    const verified = guesses.filter((response) => response.statusCode === 401);
    expect(verified).toHaveLength(3);
    expect(guesses.filter((response) => response.statusCode === 429)).toHaveLength(9);
  });
});

describe('CSRF', () => {
  it('refuses a form without a token, or with a wrong one, with a clear page', async () => {
    const { app, client, context } = await start();
    await createAdmin(context);
    await client.signIn();
    await client.get('/admin/apis/new');
    const missing = await client.post('/admin/apis', { _csrf: '', name: 'X' });
    const wrong = await client.post('/admin/apis', { _csrf: 'forged-token', name: 'X' });
    for (const response of [missing, wrong]) {
      expect(response.statusCode).toBe(403);
      expect(textOf(response.body)).toContain('This form has expired');
    }
    // A token from another browser's cookie does not pass either.
    const other = new AdminClient(app);
    await other.get('/admin/login');
    expect((await client.post('/admin/logout', { _csrf: other.csrfToken })).statusCode).toBe(403);
    expect((await client.post('/admin/login', { _csrf: '', email: 'ops@example.com', password: PASSWORD })).statusCode).toBe(403);
  });

  it('answers a method no admin page takes with the 404 page, not "This form has expired"', async () => {
    const { app, client, context } = await start();
    await createAdmin(context);
    await client.signIn();
    for (const method of ['PUT', 'DELETE', 'PATCH'] as const) {
      const response = await app.inject({ method, url: '/admin/apis', headers: { cookie: client.cookieHeader() } });
      expect([method, response.statusCode]).toEqual([method, 404]);
      expect(textOf(response.body)).toContain('There is no admin page at this address.');
    }
  });
});

describe('security headers', () => {
  it('sends a CSP without inline scripts, X-Frame-Options DENY and nosniff on admin pages', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    await client.signIn();
    for (const path of ['/admin/login', '/admin/apis', '/admin/config/publish']) {
      const response = await client.get(path);
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.body).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>|\son[a-z]+=/);
    }
  });

  it('shows an unknown admin page as a 404 page in the layout', async () => {
    const { client, context } = await start();
    await createAdmin(context);
    await client.signIn();
    const response = await client.get('/admin/no-such-page');
    expect(response.statusCode).toBe(404);
    expect(textOf(response.body)).toContain('Page not found');
  });
});
