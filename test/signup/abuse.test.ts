// Abuse resistance: per-IP signup limits (form and key-creator API) and the
// honeypot field that silently discards bot signups.
import { afterEach, describe, expect, it } from 'vitest';
import { superuserToken } from '../helpers/admin-api.js';
import { KEY_CREATOR_ROLE } from '../../src/api-users/model.js';
import { apiUserInput } from '../helpers/users.js';
import { ManualClock } from '../../src/lib/clock.js';
import { HONEYPOT_FIELD } from '../../src/signup/abuse.js';
import { keyOnPage, startSignupApp, submitSignup, VALID_SIGNUP, type SignupApp } from './signup-app.js';

let running: SignupApp | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

describe('the honeypot', () => {
  it('hides the field from people', async () => {
    running = await startSignupApp();
    const form = await running.app.inject({ method: 'GET', url: '/signup/' });
    expect(form.body).toMatch(new RegExp(`<div hidden aria-hidden="true">\\s*<label[^>]*>[^<]*</label>\\s*<input id="f-${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}"[^>]*tabindex="-1" autocomplete="off">`));
  });

  it('answers a filled-in honeypot like a success, with a key that was never stored', async () => {
    running = await startSignupApp();
    const response = await submitSignup(running.app, { ...VALID_SIGNUP, [HONEYPOT_FIELD]: '555-0100' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Your API key for <strong>ada@example.com</strong> is:');
    const key = keyOnPage(response.body)!;
    expect(key).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(running.context.keyIndex.find(key)).toBeNull();
    expect(running.context.users.list().total).toBe(0);
  });
});

describe('the per-IP signup limit', () => {
  it('allows 5 signups a minute from one IP, then answers 429 with a readable message until the minute is over', async () => {
    const clock = new ManualClock();
    running = await startSignupApp({}, { clock });
    const from = (remoteAddress: string) => submitSignup(running!.app, VALID_SIGNUP, { remoteAddress });
    for (let i = 0; i < 5; i++) expect((await from('203.0.113.5')).statusCode).toBe(200);

    const refused = await from('203.0.113.5');
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toMatch(/<div class="flash flash-error" role="alert">Too many signups from your network\. Please try again in [12] minutes?\.<\/div>/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('value="ada@example.com"');
    expect(keyOnPage(refused.body)).toBeNull();
    expect(running.context.users.countByEmail('ada@example.com')).toBe(5);

    expect((await from('198.51.100.7')).statusCode).toBe(200);

    clock.advance(120_000);
    expect((await from('203.0.113.5')).statusCode).toBe(200);
  });

  it('applies the configured hourly limit', async () => {
    const clock = new ManualClock();
    running = await startSignupApp({ signup: { rate_limit_per_minute: 100, rate_limit_per_hour: 3 } }, { clock });
    for (let i = 0; i < 3; i++) {
      expect((await submitSignup(running.app, VALID_SIGNUP, { remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
      clock.advance(61_000);
    }
    const refused = await submitSignup(running.app, VALID_SIGNUP, { remoteAddress: '203.0.113.9' });
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toMatch(/Please try again in \d+ minutes\./);
  });

  it('does not count forms sent back with errors', async () => {
    running = await startSignupApp({ signup: { rate_limit_per_minute: 1 } });
    for (let i = 0; i < 3; i++) expect((await submitSignup(running.app, { ...VALID_SIGNUP, email: '' }, { remoteAddress: '203.0.113.10' })).statusCode).toBe(422);
    expect((await submitSignup(running.app, VALID_SIGNUP, { remoteAddress: '203.0.113.10' })).statusCode).toBe(200);
  });

  it('limits a key-creator key per client IP, with 429 OVER_RATE_LIMIT and CORS; admins are not limited', async () => {
    running = await startSignupApp({ signup: { rate_limit_per_minute: 2 } });
    const { context, app } = running;
    const embedKey = context.users.create(apiUserInput({ email: VALID_SIGNUP.email, roles: [KEY_CREATOR_ROLE] }), null).apiKey;
    const adminToken = await superuserToken(context, 'admin@example.com');
    const post = (headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/api-umbrella/v1/users', headers, payload: { user: VALID_SIGNUP }, remoteAddress: '203.0.113.20' });

    expect((await post({ 'x-api-key': embedKey })).statusCode).toBe(201);
    expect((await post({ 'x-api-key': embedKey })).statusCode).toBe(201);
    const refused = await post({ 'x-api-key': embedKey });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(refused.json()).toEqual({ error: { code: 'OVER_RATE_LIMIT', message: expect.stringMatching(/^Too many signups from your network\. Please try again in [12] minutes?\.$/) } });
    expect((await post({ 'x-admin-auth-token': adminToken })).statusCode).toBe(201);
  });
});
