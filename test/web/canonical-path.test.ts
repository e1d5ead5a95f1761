// The gateway's own pages and admin API answer only at their canonical path:
// Fastify's router decodes a path before matching, so "/%61dmin/login"
// served the sign-in page past a load balancer rule keeping /admin off the
// internet by its raw prefix (a security review's finding).
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

async function ask(path: string, method: 'GET' | 'POST' = 'GET', headers: Record<string, string> = {}) {
  const reply = await request(`${gw.url}${path}`, { method, headers });
  const text = await reply.body.text();
  return { status: reply.statusCode, location: reply.headers.location, text };
}

describe('the pages and the admin API at another spelling of their path', () => {
  it('send GET and HEAD to the canonical path, where a rule on the raw path sees them', async () => {
    expect(await ask('/%61dmin/login?next=%2Fadmin%2F')).toMatchObject({ status: 301, location: '/admin/login?next=%2Fadmin%2F' });
    expect(await ask('/admin//login')).toMatchObject({ status: 301, location: '/admin/login' });
    expect(await ask('/%73ignup/')).toMatchObject({ status: 301, location: '/signup/' });
    expect(await ask('/api-umbrella/v1/%61pis', 'GET', { 'x-admin-auth-token': gw.adminToken })).toMatchObject({ status: 301, location: '/api-umbrella/v1/apis' });
  });

  it('answer other methods the gateway\'s 404, as for a path nothing serves', async () => {
    const posted = await ask('/%61dmin/login', 'POST', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(posted.status).toBe(404);
    expect(JSON.parse(posted.text)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('serve the canonical path as before', async () => {
    expect((await ask('/admin/login')).status).toBe(200);
    expect((await ask('/api-umbrella/v1/apis', 'GET', { 'x-admin-auth-token': gw.adminToken })).status).toBe(200);
  });
});
