import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { gatewayPlugin } from '../../src/gateway/plugin.js';
import { testConfig } from '../helpers/config.js';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture();
  const { gw, echo } = fx;
  await gw.publishBackend(echoBackend(echo, { url_matches: [{ frontend_prefix: '/x/incoming/', backend_prefix: '/info/outgoing/' }] }));
  await gw.publishBackend(
    echoBackend(echo, { frontend_host: 'api.example.com', backend_host: 'exact.example', url_matches: [{ frontend_prefix: '/host/', backend_prefix: '/exact/' }] }),
  );
  await gw.publishBackend(
    echoBackend(echo, { frontend_host: '*.example.com', backend_host: 'sub.example', url_matches: [{ frontend_prefix: '/host/', backend_prefix: '/sub/' }] }),
  );
  await gw.publishBackend(
    echoBackend(echo, { frontend_host: 'ported.example.com:8080', backend_host: 'ported.example', url_matches: [{ frontend_prefix: '/port/', backend_prefix: '/ported/' }] }),
  );
  await gw.publishBackend(echoBackend(echo, { backend_host: 'short.example', url_matches: [{ frontend_prefix: '/nest/', backend_prefix: '/short/' }] }));
  await gw.publishBackend(echoBackend(echo, { backend_host: 'long.example', url_matches: [{ frontend_prefix: '/nest/deeper/', backend_prefix: '/long/' }] }));
  await gw.publishBackend(echoBackend(echo, { backend_host: 'first.example', url_matches: [{ frontend_prefix: '/tie/', backend_prefix: '/first/' }] }));
  await gw.publishBackend(
    echoBackend(echo, { frontend_host: 'tie.example.com', backend_host: 'second.example', url_matches: [{ frontend_prefix: '/tie/', backend_prefix: '/second/' }] }),
  );
});
afterAll(() => fx.close());

const get = (path: string, host?: string) => send(fx.gw.url, path, { headers: { 'x-api-key': fx.apiKey, ...(host ? { host } : {}) } });

describe('routing', () => {
  it('forwards percent-encoded paths as sent', async () => {
    expect((await get('/x/incoming/a%20b/%C3%A9?q=%2F')).echoed.url).toBe('/info/outgoing/a%20b/%C3%A9?q=%2F');
  });

  it('replaces the prefix once and keeps the rest of the path and the query', async () => {
    const reply = await get('/x/incoming/foo/x/incoming/bar?p=1&q=%20');
    expect(reply.status).toBe(200);
    expect(reply.echoed.url).toBe('/info/outgoing/foo/x/incoming/bar?p=1&q=%20');
  });

  it('matches frontend_host case-insensitively, with wildcard subdomains', async () => {
    expect((await get('/host/a', 'API.Example.COM')).echoed.path).toBe('/exact/a');
    expect((await get('/host/a', 'other.example.com')).echoed.path).toBe('/sub/a');
    expect((await get('/host/a', 'example.com')).status).toBe(404);
  });

  it('requires the port written in frontend_host', async () => {
    expect((await get('/port/a', 'ported.example.com:8080')).echoed.path).toBe('/ported/a');
    expect((await get('/port/a', 'ported.example.com:9090')).status).toBe(404);
  });

  it('takes the longest matching prefix, case-sensitively', async () => {
    expect((await get('/nest/deeper/x')).echoed.path).toBe('/long/x');
    expect((await get('/nest/deeperx')).echoed.path).toBe('/short/deeperx');
    expect((await get('/nest/deeper')).echoed.path).toBe('/short/deeper');
    expect((await get('/NEST/deeper/x')).status).toBe(404);
  });

  it('gives a tie to the earlier-created backend, even when the later one names the host exactly', async () => {
    expect((await get('/tie/x', 'tie.example.com')).echoed.path).toBe('/first/x');
  });

  it('answers 404 NOT_FOUND when nothing matches, without reaching an upstream, with a request id to quote', async () => {
    const before = fx.echo.requests.length;
    const reply = await get('/nowhere/at/all');
    expect(reply.status).toBe(404);
    expect(reply.headers['x-api-umbrella-request-id']).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(JSON.parse(reply.text)).toEqual({ error: { code: 'NOT_FOUND', message: 'The requested URL was not found on this server.' } });
    expect(fx.echo.requests.length).toBe(before);
  });

  it('serves the built-in homepage at / when no backend takes it, and only for GET and HEAD', async () => {
    const home = await send(fx.gw.url, '/');
    expect(home.status).toBe(200);
    expect(home.headers['content-type']).toContain('text/html');
    expect(home.text).toContain('Parasol');
    expect((await send(fx.gw.url, '/', { method: 'HEAD' })).status).toBe(200);
    expect(errorCode(await send(fx.gw.url, '/', { method: 'POST' }))).toBe('NOT_FOUND');
  });

  it('switches to a newly published table on the next request', async () => {
    expect((await get('/fresh/x')).status).toBe(404);
    await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/fresh/', backend_prefix: '/' }] }));
    expect((await get('/fresh/x')).echoed.path).toBe('/x');
  });
});

describe('publishing under load', () => {
  it('drops and fails no request while publishes swap the table', async () => {
    const statuses: number[] = [];
    const load = (async () => {
      for (let round = 0; round < 40; round++) {
        const replies = await Promise.all(Array.from({ length: 10 }, () => get('/x/incoming/load')));
        statuses.push(...replies.map((reply) => reply.status));
      }
    })();
    for (let index = 0; index < 5; index++) {
      await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: `/churn${index}/`, backend_prefix: '/' }] }));
    }
    await load;
    expect(statuses.length).toBe(400);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });
});

describe('root backend', () => {
  it('proxies / when a backend claims it, instead of the homepage', async () => {
    const local = await startProxyFixture();
    try {
      await local.gw.publishBackend(echoBackend(local.echo, { url_matches: [{ frontend_prefix: '/', backend_prefix: '/root/' }] }));
      const reply = await send(local.gw.url, '/', { headers: { 'x-api-key': local.apiKey } });
      expect(reply.echoed.path).toBe('/root/');
      expect((await send(local.gw.url, '/elsewhere', { headers: { 'x-api-key': local.apiKey } })).echoed.path).toBe('/root/elsewhere');
      // The gateway's own endpoints stay its own.
      const before = local.echo.requests.length;
      const health = await send(local.gw.url, '/api-umbrella/v1/health');
      expect([health.status, JSON.parse(health.text)]).toEqual([200, { status: 'green' }]);
      expect(local.echo.requests.length).toBe(before);
    } finally {
      await local.close();
    }
  });
});

describe('homepage option', () => {
  it('calls the given homepage handler for GET /', async () => {
    const context = createContext(testConfig());
    const app = Fastify();
    await app.register(gatewayPlugin(context, { homepage: (_request, reply) => reply.type('text/plain').send('custom home') }));
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const reply = await send(url, '/');
      expect(reply.text).toBe('custom home');
    } finally {
      await app.close();
      context.close();
    }
  });
});
