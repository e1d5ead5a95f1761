// The Host a backend is sent when its backend_host is a wildcard, which API
// Umbrella accepts (test_save_host_validations.rb) and fills with what the
// frontend host's wildcard matched (its api_matcher.lua); and a backend on
// an IPv6 frontend host, matched by the Host a client sends for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({
    // /redirect?to=URL answers 302 to URL.
    upstream: (request, response) => {
      if (!request.url!.includes('/redirect?')) return false;
      response.writeHead(302, { location: new URL(request.url!, 'http://x').searchParams.get('to')! }).end();
      return true;
    },
  });
  const { gw, echo } = fx;
  await gw.publishBackend(echoBackend(echo, { frontend_host: '*.star.test', backend_host: '*.backend.test', url_matches: [{ frontend_prefix: '/star/', backend_prefix: '/s/' }] }));
  await gw.publishBackend(echoBackend(echo, { frontend_host: '.dot.test', backend_host: '.backend.test:8080', url_matches: [{ frontend_prefix: '/dot/', backend_prefix: '/d/' }] }));
  await gw.publishBackend(echoBackend(echo, { frontend_host: '*', backend_host: '*', url_matches: [{ frontend_prefix: '/any/', backend_prefix: '/a/' }] }));
  await gw.publishBackend(echoBackend(echo, { frontend_host: '::1', backend_host: 'six.backend.test', url_matches: [{ frontend_prefix: '/six/', backend_prefix: '/6/' }] }));
});
afterAll(() => fx.close());

const get = (path: string, host: string) => send(fx.gw.url, path, { headers: { 'x-api-key': fx.apiKey, host } });

describe('a wildcard backend_host', () => {
  it('is sent with the labels the frontend wildcard matched: a.star.test → a.backend.test', async () => {
    const reply = await get('/star/x', 'A.b.Star.test:9080');
    expect([reply.status, reply.echoed.path, reply.echoed.headers.host]).toEqual([200, '/s/x', 'a.b.backend.test']);
  });

  it('under ".dot.test" sends the apex for the apex, and keeps the port written', async () => {
    expect((await get('/dot/x', 'dot.test')).echoed.headers.host).toBe('backend.test:8080');
    expect((await get('/dot/x', 'api.dot.test')).echoed.headers.host).toBe('api.backend.test:8080');
  });

  it('"*" under "*" sends the client\'s host name', async () => {
    const reply = await get('/any/x', 'whoever.example:9080');
    expect([reply.echoed.path, reply.echoed.headers.host]).toEqual(['/a/x', 'whoever.example']);
  });

  it("turns a redirect to the host it was sent into the client's", async () => {
    const to = encodeURIComponent('http://a.backend.test/s/next');
    const reply = await get(`/star/redirect?to=${to}`, 'a.star.test');
    expect([reply.status, reply.headers.location]).toEqual([302, 'http://a.star.test/star/next']);
  });
});

describe('an IPv6 frontend_host', () => {
  it('matches the bracketed Host a client sends for it, with a port or without', async () => {
    for (const host of ['[::1]:9080', '[::1]']) {
      const reply = await get('/six/x', host);
      expect([reply.status, reply.echoed?.path, reply.echoed?.headers.host], host).toEqual([200, '/6/x', 'six.backend.test']);
    }
    expect((await get('/six/x', '[::2]')).status).toBe(404);
  });
});
