// api_key_verification_level, as API Umbrella's
// test/proxy/api_key_validation/test_email_verification.rb checks it: keys of
// users without a verified email are refused where the level asks for one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
let verified: string;
let unverified: string;

beforeAll(async () => {
  fx = await startProxyFixture();
  await fx.gw.publishBackend(
    echoBackend(fx.echo, {
      url_matches: [{ frontend_prefix: '/verification/', backend_prefix: '/' }],
      // As in API Umbrella's test: keys are optional, and a key that is given is still checked.
      settings: { disable_api_key: true },
      sub_settings: [
        { http_method: 'any', regex: '^/none', settings: { api_key_verification_level: 'none' } },
        { http_method: 'any', regex: '^/transition-past', settings: { api_key_verification_level: 'transition_email', api_key_verification_transition_start_at: '2013-02-01T01:27:00Z' } },
        { http_method: 'any', regex: '^/transition-future', settings: { api_key_verification_level: 'transition_email', api_key_verification_transition_start_at: '2100-01-01T00:00:00Z' } },
        { http_method: 'any', regex: '^/required', settings: { api_key_verification_level: 'required_email' } },
      ],
    }),
  );
  verified = (await fx.gw.createUser({ email: 'verified@example.com', email_verified: true })).apiKey;
  unverified = (await fx.gw.createUser({ email: 'unverified@example.com', email_verified: false })).apiKey;
});
afterAll(() => fx.close());

const statusFor = async (path: string, apiKey: string) => (await send(fx.gw.url, `/verification/${path}`, { headers: { 'X-Api-Key': apiKey } })).status;

describe('api_key_verification_level', () => {
  it('lets every key through by default and with none', async () => {
    for (const path of ['hello', 'none']) {
      expect(await statusFor(path, verified), path).toBe(200);
      expect(await statusFor(path, unverified), path).toBe(200);
    }
  });

  it('required_email refuses an unverified key with 403 API_KEY_UNVERIFIED, before it reaches the backend', async () => {
    const before = fx.echo.requests.length;
    const reply = await send(fx.gw.url, '/verification/required', { headers: { 'X-Api-Key': unverified } });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text).error).toEqual({
      code: 'API_KEY_UNVERIFIED',
      message: `The api_key supplied has not been verified yet. Please check your e-mail to verify the API key. Contact us at ${fx.gw.url}/contact/ for assistance`,
    });
    expect(fx.echo.requests.length).toBe(before);
    expect(await statusFor('required', verified)).toBe(200);
  });

  it('transition_email refuses unverified keys of users created from its start on, and only those', async () => {
    expect(errorCode(await send(fx.gw.url, '/verification/transition-past', { headers: { 'X-Api-Key': unverified } }))).toBe('API_KEY_UNVERIFIED');
    expect(await statusFor('transition-past', verified)).toBe(200);
    // A user created before the start keeps working unverified.
    expect(await statusFor('transition-future', unverified)).toBe(200);
    expect(await statusFor('transition-future', verified)).toBe(200);
  });

  it('counts a user created at the very start of the transition as new', async () => {
    const { id, apiKey } = await fx.gw.createUser({ email: 'boundary@example.com', email_verified: false });
    const createdAt = fx.gw.context.users.get(id)!.created_at;
    const startingAt = (prefix: string, start: string) =>
      echoBackend(fx.echo, { url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }], settings: { api_key_verification_level: 'transition_email', api_key_verification_transition_start_at: start } });
    await fx.gw.publishBackend(startingAt('/starts-at-creation/', createdAt));
    await fx.gw.publishBackend(startingAt('/starts-just-after/', new Date(Date.parse(createdAt) + 1).toISOString()));
    expect(errorCode(await send(fx.gw.url, '/starts-at-creation/a', { headers: { 'X-Api-Key': apiKey } }))).toBe('API_KEY_UNVERIFIED');
    expect((await send(fx.gw.url, '/starts-just-after/a', { headers: { 'X-Api-Key': apiKey } })).status).toBe(200);
  });

  it('lets a key in from the next request once an admin marks its user verified', async () => {
    const { id, apiKey } = await fx.gw.createUser({ email: 'later@example.com', email_verified: false });
    expect(await statusFor('required', apiKey)).toBe(403);
    const updated = await fx.gw.adminApi('PUT', `/users/${id}`, { user: { email_verified: true } });
    expect(updated.body.user.email_verified).toBe(true);
    expect(await statusFor('required', apiKey)).toBe(200);
  });

  it('still answers API_KEY_INVALID and API_KEY_DISABLED first', async () => {
    expect(errorCode(await send(fx.gw.url, '/verification/required', { headers: { 'X-Api-Key': 'not-a-key-at-all' } }))).toBe('API_KEY_INVALID');
    const { apiKey } = await fx.gw.createUser({ email: 'off@example.com', email_verified: false, enabled: false });
    expect(errorCode(await send(fx.gw.url, '/verification/required', { headers: { 'X-Api-Key': apiKey } }))).toBe('API_KEY_DISABLED');
  });
});
