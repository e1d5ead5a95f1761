// One path is checked and forwarded: a doubled slash or an escaped letter or
// slash must not get a request past a longer prefix's or a sub-setting's
// roles to an upstream that reads the path as the one that was refused.
// (Found by a security review: a static file server behind "/files/" served
// "/files//admin/secret.txt" past the "/files/admin/" backend's role.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, send, sendRaw, startProxyFixture, statusOf, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture();
  await fx.gw.publishBackend(
    echoBackend(fx.echo, {
      name: 'Files',
      url_matches: [{ frontend_prefix: '/files/', backend_prefix: '/' }],
      sub_settings: [
        { http_method: 'any', regex: '^/private', settings: { required_roles: ['priv'] } },
        { http_method: 'any', regex: '^/secret(\\?|$)', settings: { required_roles: ['priv'] } },
      ],
    }),
  );
  await fx.gw.publishBackend(echoBackend(fx.echo, { name: 'Files admin', url_matches: [{ frontend_prefix: '/files/admin/', backend_prefix: '/admin/' }], settings: { required_roles: ['adm'] } }));
});
afterAll(() => fx.close());

async function statusAndReach(path: string): Promise<{ status: number; reached: boolean }> {
  const before = fx.echo.requests.length;
  const raw = await sendRaw(fx.gw.url, `GET ${path} HTTP/1.1\r\nHost: gw\r\nX-Api-Key: ${fx.apiKey}\r\nConnection: close\r\n\r\n`);
  return { status: statusOf(raw), reached: fx.echo.requests.length > before };
}

describe('the canonical path', () => {
  it('holds a longer prefix\'s roles for a doubled slash, an escaped letter or an escaped slash', async () => {
    for (const path of ['/files/admin/secret.txt', '/files//admin/secret.txt', '/files/%61dmin/secret.txt', '/files/admin%2fsecret.txt', '/files/admin%2Fsecret.txt', '//files/admin/secret.txt']) {
      expect(await statusAndReach(path), path).toEqual({ status: 403, reached: false });
    }
  });

  it('holds a sub-setting\'s roles the same way', async () => {
    for (const path of ['/files/private/x', '/files//private/x', '/files/%70rivate/x', '/files/%2fprivate/x']) {
      expect(await statusAndReach(path), path).toEqual({ status: 403, reached: false });
    }
  });

  it('ends at a "#", as nginx\'s: a fragment does not get a request past a sub-setting anchored at the path\'s end', async () => {
    for (const path of ['/files/secret', '/files/secret#x', '/files/secret#', '/files/secret?a=1#x']) {
      expect(await statusAndReach(path), path).toEqual({ status: 403, reached: false });
    }
    const before = fx.echo.requests.length;
    const raw = await sendRaw(fx.gw.url, `GET /files/public/a?b=1#frag HTTP/1.1\r\nHost: gw\r\nX-Api-Key: ${fx.apiKey}\r\nConnection: close\r\n\r\n`);
    expect(statusOf(raw)).toBe(200);
    expect(fx.echo.requests.slice(before).map((request) => request.url)).toEqual(['/public/a?b=1']);
  });

  it('sends the upstream the path it checked', async () => {
    const reply = await send(fx.gw.url, '/files//public/%7Euser/a%20b%2fc', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.status).toBe(200);
    expect(reply.echoed.path).toBe('/public/~user/a%20b/c');
  });
});
