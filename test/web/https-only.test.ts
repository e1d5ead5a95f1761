// With an HTTPS listener, the gateway's own pages and APIs are not used over
// plain HTTP from another machine, as in API Umbrella (routing/test_admin.rb,
// test_website.rb): pages redirect, the admin and signup APIs answer 400
// HTTPS_REQUIRED. A request through the loopback with X-Forwarded-For stands
// for another machine's (loopback is a trusted proxy); one without is a
// client on this machine, which is let through.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { httpsConfig } from '../helpers/tls.js';

const REMOTE = { 'x-forwarded-for': '203.0.113.9' };

describe('with an HTTPS listener', () => {
  let gw: TestGateway;
  // listen.https_port 0 (a free port) names no port to send clients to: the URLs have none, as the gateway's own HTTPS_REQUIRED has.
  beforeAll(async () => {
    gw = await startTestGateway(httpsConfig());
  });
  afterAll(() => gw.stop());

  const call = (path: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET', body?: string) =>
    request(`${gw.url}${path}`, { method, headers: { host: 'gateway.example', ...headers }, body });

  it('redirects the pages to HTTPS: GET and HEAD for good (301), other methods keeping theirs (308)', async () => {
    const page = await call('/admin/login?next=%2Fadmin%2F', REMOTE);
    expect([page.statusCode, page.headers.location]).toEqual([301, 'https://gateway.example/admin/login?next=%2Fadmin%2F']);
    const signup = await call('/signup/', { ...REMOTE, host: 'gateway.example:8080' });
    expect([signup.statusCode, signup.headers.location]).toEqual([301, 'https://gateway.example/signup/']);
    const posted = await call('/admin/login', { ...REMOTE, 'content-type': 'application/x-www-form-urlencoded' }, 'POST', 'email=a%40example.com&password=x');
    expect(posted.statusCode).toBe(308);
    await Promise.all([page, signup, posted].map((reply) => reply.body.dump()));
  });

  it('answers the admin and signup APIs 400 HTTPS_REQUIRED, before the token is looked at', async () => {
    const admin = await call('/api-umbrella/v1/apis', { ...REMOTE, 'x-admin-auth-token': gw.adminToken });
    expect(admin.statusCode).toBe(400);
    expect(await admin.body.json()).toEqual({
      error: { code: 'HTTPS_REQUIRED', message: 'Requests must be made over HTTPS. Try accessing the API at: https://gateway.example/api-umbrella/v1/apis' },
    });
    const signup = await call('/api-umbrella/v1/users.json', { ...REMOTE, 'content-type': 'application/json' }, 'POST', '{"user":{}}');
    expect(signup.statusCode).toBe(400);
    expect(((await signup.body.json()) as { error: { code: string } }).error.code).toBe('HTTPS_REQUIRED');
  });

  it('lets a page embedding the signup form read the refusal: the preflight is answered, the 400 open to any origin', async () => {
    const preflight = await request(`${gw.url}/api-umbrella/v1/users.json`, {
      method: 'OPTIONS',
      headers: { host: 'gateway.example', origin: 'http://blog.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key', ...REMOTE },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    await preflight.body.dump();
    const signup = await call('/api-umbrella/v1/users.json', { ...REMOTE, origin: 'http://blog.example', 'content-type': 'application/json' }, 'POST', '{"user":{}}');
    expect([signup.statusCode, signup.headers['access-control-allow-origin']]).toEqual([400, '*']);
    await signup.body.dump();
  });

  it('serves them to a trusted proxy that says the client used HTTPS, to a client on this machine, and the health check to anyone', async () => {
    for (const headers of [{ ...REMOTE, 'x-forwarded-proto': 'https' }, {}]) {
      const page = await call('/admin/login', headers);
      const api = await call('/api-umbrella/v1/apis', { ...headers, 'x-admin-auth-token': gw.adminToken });
      expect([page.statusCode, api.statusCode]).toEqual([200, 200]);
      await Promise.all([page.body.dump(), api.body.dump()]);
    }
    const health = await call('/api-umbrella/v1/health', REMOTE);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });
});

it('without an HTTPS listener, serves the pages and APIs over plain HTTP', async () => {
  const gw = await startTestGateway({ listen: { host: '127.0.0.1', port: 0 } });
  try {
    const page = await request(`${gw.url}/admin/login`, { headers: REMOTE });
    const api = await request(`${gw.url}/api-umbrella/v1/apis`, { headers: { ...REMOTE, 'x-admin-auth-token': gw.adminToken } });
    expect([page.statusCode, api.statusCode]).toEqual([200, 200]);
    await Promise.all([page.body.dump(), api.body.dump()]);
  } finally {
    await gw.stop();
  }
});
