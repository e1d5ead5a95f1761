import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EchoedRequest } from '../helpers/echo-upstream.js';
import { basicAuth, echoBackend, send, sendRaw, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
let rolesKey: string;
let rolesUserId: string;
beforeAll(async () => {
  fx = await startProxyFixture();
  const { gw, echo } = fx;
  await gw.publishBackend(echoBackend(echo));
  await gw.publishBackend(echoBackend(echo, { backend_host: '', url_matches: [{ frontend_prefix: '/nohost/', backend_prefix: '/' }] }));
  await gw.publishBackend(
    echoBackend(echo, {
      url_matches: [{ frontend_prefix: '/settings/', backend_prefix: '/' }],
      settings: {
        append_query_string: 'extra=1&b=appended',
        headers: [
          { key: 'X-Backend-Secret', value: 'from-settings' },
          { key: 'User-Agent', value: 'parasol-settings' },
        ],
        http_basic_auth: 'svc:pa55',
      },
    }),
  );
  await gw.publishBackend(
    echoBackend(echo, {
      url_matches: [{ frontend_prefix: '/owned/', backend_prefix: '/' }],
      settings: {
        headers: [
          { key: 'Host', value: 'custom.example' },
          { key: 'X-Forwarded-Proto', value: 'https' },
          { key: 'X-Api-User-Id', value: 'someone-else' },
          { key: 'X-Api-Roles', value: 'admin' },
          { key: 'Connection', value: 'close' },
          { key: 'Transfer-Encoding', value: 'chunked' },
          { key: 'X-Extra', value: 'kept' },
        ],
      },
    }),
  );
  const user = await gw.createUser({ email: 'roles@example.com', roles: ['a', 'b'] });
  rolesKey = user.apiKey;
  rolesUserId = user.id;
});
afterAll(() => fx.close());

describe('the query the upstream sees', () => {
  it('has every api_key parameter removed and the rest in order', async () => {
    const reply = await send(fx.gw.url, `/echo/q?api_key=${fx.apiKey}&ccc=foo&api_key=&aaa=bar&api_key&b=test&api_key=invalid`);
    expect(reply.status).toBe(200);
    expect(reply.echoed.query).toBe('ccc=foo&aaa=bar&b=test');
  });

  it('keeps parameters that only contain api_key', async () => {
    const reply = await send(fx.gw.url, '/echo/q?search=api_key&foo_api_key=bar&api_key_foo=bar', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.echoed.query).toBe('search=api_key&foo_api_key=bar&api_key_foo=bar');
  });

  it('gets append_query_string last, replacing same-named client parameters', async () => {
    const reply = await send(fx.gw.url, '/settings/q?a=1&b=client&c=3', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.echoed.query).toBe('a=1&c=3&extra=1&b=appended');
  });
});

describe('the headers the upstream sees', () => {
  it('lose X-Api-Key, and a client Authorization passes when the key came from elsewhere', async () => {
    const reply = await send(fx.gw.url, '/echo/h', { headers: { 'X-Api-Key': fx.apiKey, authorization: basicAuth('client-user', 'pw') } });
    expect(reply.echoed.headers['x-api-key']).toBeUndefined();
    expect(reply.echoed.basicAuthUser).toBe('client-user');
  });

  it('lose an X-Admin-Auth-Token a client sent along, which no backend should learn', async () => {
    const reply = await send(fx.gw.url, '/echo/h', { headers: { 'X-Api-Key': fx.apiKey, 'X-Admin-Auth-Token': 'an-admin-token-sent-by-mistake' } });
    expect(reply.status).toBe(200);
    expect(reply.echoed.headers['x-admin-auth-token']).toBeUndefined();
  });

  it('lose Authorization when the key came from it', async () => {
    const reply = await send(fx.gw.url, '/echo/h', { headers: { authorization: basicAuth(fx.apiKey) } });
    expect(reply.status).toBe(200);
    expect(reply.echoed.headers.authorization).toBeUndefined();
  });

  it('lose Authorization when it carries the key that came from the header or query as well', async () => {
    for (const [path, headers] of [
      ['/echo/h', { 'X-Api-Key': fx.apiKey, authorization: basicAuth(fx.apiKey, 'x') }],
      [`/echo/h?api_key=${fx.apiKey}`, { authorization: basicAuth(fx.apiKey) }],
    ] as const) {
      const reply = await send(fx.gw.url, path, { headers });
      expect(reply.status).toBe(200);
      expect(reply.echoed.headers.authorization).toBeUndefined();
    }
  });

  it('carry Host = backend_host, or the incoming Host when backend_host is empty', async () => {
    expect((await send(fx.gw.url, '/echo/h', { headers: { 'X-Api-Key': fx.apiKey } })).echoed.headers.host).toBe('backend.example');
    const incoming = await send(fx.gw.url, '/nohost/h', { headers: { 'X-Api-Key': fx.apiKey, host: 'public.example:8080' } });
    expect(incoming.echoed.headers.host).toBe('public.example:8080');
  });

  it('carry X-Forwarded-For/-Proto/-Host, and as X-Forwarded-Port the port the client connected to, not the one its Host names', async () => {
    const reply = await send(fx.gw.url, '/echo/h', { headers: { 'X-Api-Key': fx.apiKey, host: 'public.example:8080' } });
    expect(reply.echoed.headers).toMatchObject({
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-port': new URL(fx.gw.url).port,
      'x-forwarded-host': 'public.example:8080',
    });
  });

  it("take a trusted proxy's X-Forwarded-Port (loopback is trusted), when it is a port number", async () => {
    const behindProxy = await send(fx.gw.url, '/echo/h', { headers: { 'X-Api-Key': fx.apiKey, 'X-Forwarded-Port': '8443', 'X-Forwarded-Proto': 'https' } });
    expect(behindProxy.echoed.headers).toMatchObject({ 'x-forwarded-port': '8443', 'x-forwarded-proto': 'https' });
    const notAPort = await send(fx.gw.url, '/echo/h', { headers: { 'X-Api-Key': fx.apiKey, 'X-Forwarded-Port': '84x3' } });
    expect(notAPort.echoed.headers['x-forwarded-port']).toBe(new URL(fx.gw.url).port);
  });

  it('carry the user id and roles, and drop forged copies in any case', async () => {
    const reply = await send(fx.gw.url, '/echo/h', {
      headers: { 'X-Api-Key': rolesKey, 'X-API-USER-ID': 'forged', 'x-api-roles': 'admin', 'X-Api-Umbrella-Request-Id': 'forged' },
    });
    const { rawHeaders } = reply.echoed;
    const values = (name: string) => rawHeaders.filter((_value, index) => index % 2 === 1 && rawHeaders[index - 1]!.toLowerCase() === name);
    expect(values('x-api-user-id')).toEqual([rolesUserId]);
    expect(values('x-api-roles')).toEqual(['a,b']);
    expect(values('x-api-umbrella-request-id')).toEqual([reply.headers['x-api-umbrella-request-id']]);
  });

  it('lack every client header with an underscore in its name, as nginx drops them, so none passes for X-Api-User-Id in a CGI-style backend', async () => {
    const reply = await send(fx.gw.url, '/echo/h', {
      headers: { 'X-Api-Key': rolesKey, X_Api_User_Id: 'forged', x_api_roles: 'admin', X_Forwarded_For: '1.2.3.4', 'X-Kept-Header': 'kept' },
    });
    const names = reply.echoed.rawHeaders.filter((_value, index) => index % 2 === 0).map((name) => name.toLowerCase());
    expect(names.filter((name) => name.includes('_'))).toEqual([]);
    expect(reply.echoed.headers['x-kept-header']).toBe('kept');
    expect(reply.echoed.headers['x-api-user-id']).toBe(rolesUserId);
  });

  it('have no X-Api-Roles for a user without roles', async () => {
    const reply = await send(fx.gw.url, '/echo/h', { headers: { 'X-Api-Key': fx.apiKey, 'X-Api-Roles': 'forged' } });
    expect(reply.echoed.headers['x-api-user-id']).toBe(fx.userId);
    expect(reply.echoed.headers['x-api-roles']).toBeUndefined();
  });

  it('get the header settings over client headers of any case, and http_basic_auth over client auth', async () => {
    const reply = await send(fx.gw.url, '/settings/h', {
      headers: { 'X-Api-Key': fx.apiKey, 'x-backend-SECRET': 'client', 'user-agent': 'client-agent', authorization: basicAuth('client', 'pw') },
    });
    expect(reply.echoed.headers['x-backend-secret']).toBe('from-settings');
    expect(reply.echoed.headers['user-agent']).toBe('parasol-settings');
    expect(reply.echoed.basicAuthUser).toBe('svc');
    expect(reply.echoed.headers.authorization).toBe(basicAuth('svc', 'pa55'));
  });

  it("keep the gateway's own Host, X-Forwarded-*, user and framing headers over header settings that name them", async () => {
    const reply = await send(fx.gw.url, '/owned/h', { headers: { 'X-Api-Key': rolesKey } });
    expect(reply.status).toBe(200);
    const { rawHeaders } = reply.echoed;
    const values = (name: string) => rawHeaders.filter((_value, index) => index % 2 === 1 && rawHeaders[index - 1]!.toLowerCase() === name);
    expect(values('host')).toEqual(['backend.example']);
    expect(values('x-forwarded-proto')).toEqual(['http']);
    // The backend trusts these to say who called: one value each, the gateway's.
    expect(values('x-api-user-id')).toEqual([rolesUserId]);
    expect(values('x-api-roles')).toEqual(['a,b']);
    expect(values('transfer-encoding')).toEqual([]);
    expect(values('x-extra')).toEqual(['kept']);
  });

  it('lose hop-by-hop headers and those the Connection header names', async () => {
    const raw = await sendRaw(
      fx.gw.url,
      `GET /echo/h HTTP/1.1\r\nHost: gw\r\nX-Api-Key: ${fx.apiKey}\r\nConnection: close, X-Hop-Secret\r\nX-Hop-Secret: 1\r\n` +
        'Keep-Alive: timeout=5\r\nTE: trailers\r\nProxy-Authorization: Basic eDp5\r\nX-Kept: yes\r\n\r\n',
    );
    const echoed = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as EchoedRequest;
    expect(echoed.headers['x-hop-secret']).toBeUndefined();
    expect(echoed.headers['keep-alive']).toBeUndefined();
    expect(echoed.headers.te).toBeUndefined();
    expect(echoed.headers['proxy-authorization']).toBeUndefined();
    expect(echoed.headers['x-kept']).toBe('yes');
  });

  it('share the request id returned to the client', async () => {
    const reply = await send(fx.gw.url, '/echo/h', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.echoed.headers['x-api-umbrella-request-id']).toBe(reply.headers['x-api-umbrella-request-id']);
    const next = await send(fx.gw.url, '/echo/h', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(next.headers['x-api-umbrella-request-id']).not.toBe(reply.headers['x-api-umbrella-request-id']);
  });
});
