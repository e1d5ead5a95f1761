// A key's expires_at, and a regenerated key's predecessor kept for a while
// (neither is in API Umbrella, whose keys never end): from that instant on,
// by the gateway's clock, the key is refused with 403 API_KEY_EXPIRED before
// anything reaches the backend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture } from './support.js';

const NOW = Date.UTC(2027, 0, 31, 12);
const clock = new ManualClock(NOW);
let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ context: { clock } });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

const call = (apiKey: string) => send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': apiKey } });

/** Regenerates the user's key, the old one working until `previousEnd`; returns the new key. */
async function regenerate(id: string, previousEnd: string): Promise<string> {
  const regenerated = await fx.gw.adminApi('POST', `/users/${id}/regenerate_key`, { previous_api_key_expires_at: previousEnd });
  expect(regenerated.status).toBe(200);
  return regenerated.body.user.api_key as string;
}

describe('a key with expires_at', () => {
  it('works until its expiry and is refused from that very millisecond on, without reaching the backend', async () => {
    const { apiKey } = await fx.gw.createUser({ email: 'ends@example.com', expires_at: new Date(NOW + 1000).toISOString() });
    clock.set(NOW + 999);
    expect((await call(apiKey)).status).toBe(200);
    clock.set(NOW + 1000);
    const before = fx.echo.requests.length;
    const expired = await call(apiKey);
    expect(expired.status).toBe(403);
    expect(JSON.parse(expired.text).error).toEqual({
      code: 'API_KEY_EXPIRED',
      message: `The api_key supplied has expired. Contact us at ${fx.gw.url}/contact/ for assistance`,
    });
    expect(fx.echo.requests.length).toBe(before);
  });

  it('counts a change of expires_at from the next request: moved later, cleared, or set in the past', async () => {
    clock.set(NOW);
    const { id, apiKey } = await fx.gw.createUser({ email: 'moved@example.com', expires_at: '2027-01-01T00:00:00Z' });
    expect(errorCode(await call(apiKey))).toBe('API_KEY_EXPIRED');
    expect((await fx.gw.adminApi('PUT', `/users/${id}`, { user: { expires_at: '2027-02-01' } })).status).toBe(200);
    expect((await call(apiKey)).status).toBe(200);
    expect((await fx.gw.adminApi('PUT', `/users/${id}`, { user: { expires_at: null } })).status).toBe(200);
    clock.set(Date.UTC(2099, 0, 1));
    expect((await call(apiKey)).status).toBe(200);
    expect((await fx.gw.adminApi('PUT', `/users/${id}`, { user: { expires_at: '2098-12-31T23:59:59Z' } })).status).toBe(200);
    expect(errorCode(await call(apiKey))).toBe('API_KEY_EXPIRED');
  });

  it('answers API_KEY_INVALID and API_KEY_DISABLED first, and keeps a regenerated key to the same expiry', async () => {
    clock.set(NOW);
    const { id, apiKey } = await fx.gw.createUser({ email: 'both@example.com', enabled: false, expires_at: '2020-01-01T00:00:00Z' });
    expect(errorCode(await call(apiKey))).toBe('API_KEY_DISABLED');
    // Another last character: a key ending in "x" made itself again one time in 62.
    expect(errorCode(await call(`${apiKey.slice(0, -1)}${apiKey.endsWith('x') ? 'y' : 'x'}`))).toBe('API_KEY_INVALID');
    await fx.gw.adminApi('PUT', `/users/${id}`, { user: { enabled: true } });
    const regenerated = await fx.gw.adminApi('POST', `/users/${id}/regenerate_key`);
    expect(regenerated.body.user.expires_at).toBe('2020-01-01T00:00:00Z');
    expect(errorCode(await call(regenerated.body.user.api_key))).toBe('API_KEY_EXPIRED');
  });

  it('does not touch keys without one', async () => {
    clock.set(Date.UTC(2999, 0, 1));
    expect((await call(fx.apiKey)).status).toBe(200);
  });
});

describe('a key regenerated with previous_api_key_expires_at', () => {
  it('leaves the old key working beside the new one until then, as the same user, and refuses it with API_KEY_EXPIRED after', async () => {
    clock.set(NOW);
    const { id, apiKey: old } = await fx.gw.createUser({ email: 'rolling@example.com' });
    const regenerated = await fx.gw.adminApi('POST', `/users/${id}/regenerate_key`, { previous_api_key_expires_at: new Date(NOW + 3_600_000).toISOString() });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.user).toMatchObject({ previous_api_key_preview: `${old.slice(0, 6)}...`, previous_api_key_expires_at: new Date(NOW + 3_600_000).toISOString() });
    const fresh = regenerated.body.user.api_key as string;
    const oldReply = await call(old);
    expect(oldReply.status).toBe(200);
    expect(oldReply.echoed.headers['x-api-user-id']).toBe(id);
    expect((await call(fresh)).status).toBe(200);
    clock.set(NOW + 3_600_000);
    expect(errorCode(await call(old))).toBe('API_KEY_EXPIRED');
    expect((await call(fresh)).status).toBe(200);
  });

  it('refuses an end that has passed or is no instant with 422, and changes nothing', async () => {
    clock.set(NOW);
    const { id, apiKey } = await fx.gw.createUser({ email: 'not-now@example.com' });
    for (const value of [new Date(NOW).toISOString(), 'tomorrow']) {
      const refused = await fx.gw.adminApi('POST', `/users/${id}/regenerate_key`, { previous_api_key_expires_at: value });
      expect(refused.status, value).toBe(422);
      expect(refused.body.errors[0].field).toBe('previous_api_key_expires_at');
    }
    expect((await call(apiKey)).status).toBe(200);
  });

  it('ends the old key for good when the user is disabled: enabling it again brings back only the current one', async () => {
    clock.set(NOW);
    const { id, apiKey: old } = await fx.gw.createUser({ email: 'both-off@example.com' });
    const fresh = await regenerate(id, '2027-02-28');
    await fx.gw.adminApi('PUT', `/users/${id}`, { user: { enabled: false } });
    expect(errorCode(await call(old))).toBe('API_KEY_INVALID');
    expect(errorCode(await call(fresh))).toBe('API_KEY_DISABLED');
    await fx.gw.adminApi('PUT', `/users/${id}`, { user: { enabled: true } });
    expect(errorCode(await call(old))).toBe('API_KEY_INVALID');
    expect((await call(fresh)).status).toBe(200);
    // Nor does regenerating while disabled leave an old key to come back.
    await fx.gw.adminApi('PUT', `/users/${id}`, { user: { enabled: false } });
    const third = await regenerate(id, '2027-02-28');
    await fx.gw.adminApi('PUT', `/users/${id}`, { user: { enabled: true } });
    expect(errorCode(await call(fresh))).toBe('API_KEY_INVALID');
    expect((await call(third)).status).toBe(200);
  });

  it('ends the old key at the user\'s own expires_at when that comes first', async () => {
    clock.set(NOW);
    const { id, apiKey: old } = await fx.gw.createUser({ email: 'user-ends-first@example.com', expires_at: new Date(NOW + 1000).toISOString() });
    await regenerate(id, '2027-02-28');
    clock.set(NOW + 1000);
    expect(errorCode(await call(old))).toBe('API_KEY_EXPIRED');
  });

  it('ends the old key early through DELETE /users/:id/previous_api_key, and with the user', async () => {
    clock.set(NOW);
    const { id, apiKey: old } = await fx.gw.createUser({ email: 'ended-early@example.com' });
    const fresh = await regenerate(id, '2027-02-28');
    expect((await fx.gw.adminApi('DELETE', `/users/${id}/previous_api_key`)).status).toBe(204);
    expect(errorCode(await call(old))).toBe('API_KEY_INVALID');
    expect((await call(fresh)).status).toBe(200);
    expect((await fx.gw.adminApi('GET', `/users/${id}`)).body.user).toMatchObject({ previous_api_key_preview: null, previous_api_key_expires_at: null });
    expect((await fx.gw.adminApi('DELETE', '/users/nope/previous_api_key.json')).status).toBe(404);

    const { id: goneId, apiKey: goneOld } = await fx.gw.createUser({ email: 'gone@example.com' });
    await regenerate(goneId, '2027-02-28');
    expect((await fx.gw.adminApi('DELETE', `/users/${goneId}`)).status).toBe(204);
    expect(errorCode(await call(goneOld))).toBe('API_KEY_INVALID');
  });

  it('counts both keys against the same api_key rate limits', async () => {
    clock.set(NOW);
    await fx.gw.publishBackend(
      echoBackend(fx.echo, {
        url_matches: [{ frontend_prefix: '/limited/', backend_prefix: '/' }],
        settings: { rate_limit_mode: 'custom', rate_limits: [{ duration: 60_000, limit_by: 'api_key', limit: 2, response_headers: true }] },
      }),
    );
    const { id, apiKey: old } = await fx.gw.createUser({ email: 'limited@example.com' });
    const fresh = await regenerate(id, '2027-02-28');
    const statuses = [];
    for (const key of [old, fresh, old, fresh]) statuses.push((await send(fx.gw.url, '/limited/a', { headers: { 'X-Api-Key': key } })).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('takes the end inside "user" too, and refuses one more than 30 days ahead', async () => {
    clock.set(NOW);
    const { id } = await fx.gw.createUser({ email: 'wrapped@example.com' });
    const wrapped = await fx.gw.adminApi('POST', `/users/${id}/regenerate_key`, { user: { previous_api_key_expires_at: '2027-02-01' } });
    expect(wrapped.body.user.previous_api_key_expires_at).toBe('2027-02-01T00:00:00.000Z');
    const tooLate = await fx.gw.adminApi('POST', `/users/${id}/regenerate_key`, { previous_api_key_expires_at: new Date(NOW + 30 * 86_400_000 + 1).toISOString() });
    expect(tooLate.status).toBe(422);
    expect(tooLate.body.errors[0].message).toBe('must be within 30 days from now');
  });
});
