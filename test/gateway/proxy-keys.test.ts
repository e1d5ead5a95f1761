import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiUserRepository } from '../../src/api-users/repository.js';
import { ManualClock } from '../../src/lib/clock.js';
import { openStore } from '../../src/store/db.js';
import { basicAuth, echoBackend, errorCode, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture();
  const { gw, echo } = fx;
  await gw.publishBackend(echoBackend(echo));
  await gw.publishBackend(
    echoBackend(echo, { url_matches: [{ frontend_prefix: '/open/', backend_prefix: '/' }], settings: { disable_api_key: true } }),
  );
  await gw.publishBackend(
    echoBackend(echo, {
      url_matches: [{ frontend_prefix: '/roles/', backend_prefix: '/' }],
      settings: { required_roles: ['reader'] },
      sub_settings: [
        { http_method: 'POST', regex: '^/write', settings: { required_roles: ['writer'] } },
        { http_method: 'any', regex: '^/replaced', settings: { required_roles: ['other'], required_roles_override: true } },
        { http_method: 'any', regex: '^/public', settings: { disable_api_key: true } },
      ],
    }),
  );
});
afterAll(() => fx.close());

const reachedUpstream = async (action: () => Promise<unknown>): Promise<boolean> => {
  const before = fx.echo.requests.length;
  await action();
  return fx.echo.requests.length > before;
};

describe('where the key comes from', () => {
  it('accepts the X-Api-Key header', async () => {
    expect((await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': fx.apiKey } })).status).toBe(200);
  });

  it('accepts the api_key query parameter on GET, POST and PUT', async () => {
    for (const method of ['GET', 'POST', 'PUT']) {
      const reply = await send(fx.gw.url, `/echo/a?api_key=${fx.apiKey}`, { method, body: method === 'GET' ? undefined : 'x' });
      expect(reply.status, method).toBe(200);
    }
  });

  it('accepts the basic-auth username with an empty or ignored password', async () => {
    expect((await send(fx.gw.url, '/echo/a', { headers: { authorization: basicAuth(fx.apiKey) } })).status).toBe(200);
    expect((await send(fx.gw.url, '/echo/a', { headers: { authorization: basicAuth(fx.apiKey, 'ignored') } })).status).toBe(200);
    const loose = `basIC   ${Buffer.from(`${fx.apiKey}:`).toString('base64')} `;
    expect((await send(fx.gw.url, '/echo/a', { headers: { authorization: loose } })).status).toBe(200);
  });

  it('skips an empty header or parameter and tries the next source', async () => {
    const reply = await send(fx.gw.url, `/echo/a?api_key=`, { headers: { 'X-Api-Key': '', authorization: basicAuth(fx.apiKey) } });
    expect(reply.status).toBe(200);
  });

  it('counts a key only in the password, a Digest scheme or broken base64 as no key', async () => {
    for (const authorization of [basicAuth('', fx.apiKey), `Digest username="${fx.apiKey}"`, 'Basic %%%', 'Basic', 'foo bar']) {
      const reply = await send(fx.gw.url, '/echo/a', { headers: { authorization } });
      expect(errorCode(reply), authorization).toBe('API_KEY_MISSING');
    }
  });
});

describe('key validity', () => {
  it('answers API_KEY_MISSING without a key', async () => {
    const reply = await send(fx.gw.url, '/echo/a');
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text)).toEqual({
      error: { code: 'API_KEY_MISSING', message: `No api_key was supplied. Get one at ${fx.gw.url}/signup/` },
    });
  });

  it('answers API_KEY_INVALID for unknown, too short, too long keys and keys sharing a valid prefix', async () => {
    for (const key of ['abc', 'x'.repeat(61), 'DEMO_KEY_UNKNOWN_1234567890', `${fx.apiKey.slice(0, 16)}${'A'.repeat(24)}`, `${fx.apiKey}x`]) {
      const reply = await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': key } });
      expect(reply.status, key).toBe(403);
      expect(errorCode(reply), key).toBe('API_KEY_INVALID');
    }
  });

  it('answers API_KEY_DISABLED from the next request after a user is disabled, and lets it back in when re-enabled', async () => {
    const { id, apiKey } = await fx.gw.createUser({ email: 'toggle@example.com' });
    expect((await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': apiKey } })).status).toBe(200);
    expect((await fx.gw.adminApi('PUT', `/users/${id}`, { user: { enabled: false } })).status).toBe(200);
    const disabled = await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': apiKey } });
    expect(disabled.status).toBe(403);
    expect(JSON.parse(disabled.text).error).toEqual({
      code: 'API_KEY_DISABLED',
      message: `The api_key supplied has been disabled. Contact us at ${fx.gw.url}/contact/ for assistance`,
    });
    await fx.gw.adminApi('PUT', `/users/${id}`, { user: { enabled: true } });
    expect((await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': apiKey } })).status).toBe(200);
  });

  it('answers API_KEY_INVALID from the next request after a user is deleted', async () => {
    const { id, apiKey } = await fx.gw.createUser({ email: 'deleted@example.com' });
    expect((await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': apiKey } })).status).toBe(200);
    expect((await fx.gw.adminApi('DELETE', `/users/${id}`)).status).toBe(204);
    expect(errorCode(await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': apiKey } }))).toBe('API_KEY_INVALID');
  });

  it('rejects the old key and accepts the new one from the next request after regeneration', async () => {
    const { id, apiKey } = await fx.gw.createUser({ email: 'rotate@example.com' });
    expect((await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': apiKey } })).status).toBe(200);
    const regenerated = await fx.gw.adminApi('POST', `/users/${id}/regenerate_key`);
    const fresh = regenerated.body.user.api_key as string;
    expect(errorCode(await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': apiKey } }))).toBe('API_KEY_INVALID');
    expect((await send(fx.gw.url, '/echo/a', { headers: { 'X-Api-Key': fresh } })).status).toBe(200);
  });

  it('never lets a denied request reach the upstream', async () => {
    expect(await reachedUpstream(() => send(fx.gw.url, '/echo/a'))).toBe(false);
    expect(await reachedUpstream(() => send(fx.gw.url, '/echo/a', { method: 'POST', body: 'x', headers: { 'X-Api-Key': 'nope-nope' } }))).toBe(false);
  });
});

describe('disable_api_key', () => {
  it('lets a request without a key through, without a user', async () => {
    const reply = await send(fx.gw.url, '/open/a');
    expect(reply.status).toBe(200);
    expect(reply.echoed.headers['x-api-user-id']).toBeUndefined();
  });

  it('still validates a key that is given', async () => {
    expect(errorCode(await send(fx.gw.url, '/open/a?api_key=wrong-key'))).toBe('API_KEY_INVALID');
    const reply = await send(fx.gw.url, '/open/a', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.echoed.headers['x-api-user-id']).toBe(fx.userId);
  });
});

describe('required roles', () => {
  it('needs every role of the backend; "admin" gives no bypass', async () => {
    const none = await fx.gw.createUser({ email: 'none@example.com', roles: ['admin'] });
    const reader = await fx.gw.createUser({ email: 'reader@example.com', roles: ['reader', 'extra'] });
    const denied = await send(fx.gw.url, '/roles/x', { headers: { 'X-Api-Key': none.apiKey } });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text).error.message).toBe(
      `The api_key supplied is not authorized to access the given service. Contact us at ${fx.gw.url}/contact/ for assistance`,
    );
    const allowed = await send(fx.gw.url, '/roles/x', { headers: { 'X-Api-Key': reader.apiKey } });
    expect(allowed.status).toBe(200);
    expect(allowed.echoed.headers['x-api-roles']).toBe('reader,extra');
  });

  it("adds a sub-setting's roles to the backend's, unless it overrides them", async () => {
    const reader = await fx.gw.createUser({ email: 'r@example.com', roles: ['reader'] });
    const writer = await fx.gw.createUser({ email: 'w@example.com', roles: ['writer'] });
    const both = await fx.gw.createUser({ email: 'rw@example.com', roles: ['reader', 'writer'] });
    const other = await fx.gw.createUser({ email: 'o@example.com', roles: ['other'] });
    const post = (key: string) => send(fx.gw.url, '/roles/write', { method: 'POST', body: 'x', headers: { 'X-Api-Key': key } });
    expect(errorCode(await post(reader.apiKey))).toBe('API_KEY_UNAUTHORIZED');
    expect(errorCode(await post(writer.apiKey))).toBe('API_KEY_UNAUTHORIZED');
    expect((await post(both.apiKey)).status).toBe(200);
    expect((await send(fx.gw.url, '/roles/replaced', { headers: { 'X-Api-Key': other.apiKey } })).status).toBe(200);
    expect(errorCode(await send(fx.gw.url, '/roles/replaced', { headers: { 'X-Api-Key': reader.apiKey } }))).toBe('API_KEY_UNAUTHORIZED');
  });

  it('refuses a request without a user when roles are required, even with disable_api_key', async () => {
    expect(errorCode(await send(fx.gw.url, '/roles/public'))).toBe('API_KEY_UNAUTHORIZED');
  });

  it('checks the key before the roles', async () => {
    expect(errorCode(await send(fx.gw.url, '/roles/x', { headers: { 'X-Api-Key': 'invalid-key' } }))).toBe('API_KEY_INVALID');
    expect(errorCode(await send(fx.gw.url, '/roles/x'))).toBe('API_KEY_MISSING');
  });
});

describe('changes made by another process', () => {
  it('refuses a user disabled by another process once the key index has refreshed and a second has passed', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const local = await startProxyFixture({ context: { clock } });
    try {
      await local.gw.publishBackend(echoBackend(local.echo));
      const call = () => send(local.gw.url, '/echo/a', { headers: { 'X-Api-Key': local.apiKey } });
      expect((await call()).status).toBe(200);
      // A second connection to the same store, as the CLI would open.
      const otherDb = openStore(local.gw.context.config.data_dir);
      const otherUsers = new ApiUserRepository(otherDb, local.gw.context.secretKey);
      const user = otherUsers.get(local.userId)!;
      otherUsers.update(user.id, { ...user, enabled: false }, null);
      otherDb.close();
      local.gw.context.keyIndex.refresh();
      clock.advance(1000);
      expect(errorCode(await call())).toBe('API_KEY_DISABLED');
    } finally {
      await local.close();
    }
  });
});
