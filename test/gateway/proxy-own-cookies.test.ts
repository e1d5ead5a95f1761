// Parasol's own cookies (the CSRF secret of its admin and signup pages, the
// admin session) never reach a backend, as API Umbrella strips its admin
// cookies (test/proxy/request_rewriting/test_cookie_stripping.rb): not even
// with strip_cookies empty. A request whose only cookie was Parasol's counts
// as one without cookies for the response cache.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

/** Paths under /backend/cached/ answer with a unique body that may be cached for a minute. */
function cacheableBackend(request: IncomingMessage, response: ServerResponse): boolean {
  if (!request.url!.startsWith('/backend/cached/')) return false;
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'max-age=60' });
  response.end(randomUUID());
  return true;
}

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ config: { strip_cookies: [], cache: { max_size_mb: 1 } }, upstream: cacheableBackend });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

const get = (path: string, cookie: string) => send(fx.gw.url, path, { headers: { 'X-Api-Key': fx.apiKey, Cookie: cookie } });

it("takes Parasol's CSRF and admin cookies out of the Cookie header sent upstream", async () => {
  expect((await get('/echo/info/', 'foo1=bar1; parasol_csrf=abc.def; foo2=bar2')).echoed.headers.cookie).toBe('foo1=bar1; foo2=bar2');
  expect((await get('/echo/info/', 'parasol_admin_session=s; foo1=bar1; parasol_flash=f')).echoed.headers.cookie).toBe('foo1=bar1');
  expect((await get('/echo/info/', 'parasol_csrfx=1; foo1=bar1')).echoed.headers.cookie).toBe('parasol_csrfx=1; foo1=bar1');
});

it("sends no Cookie header when Parasol's were the only cookies", async () => {
  const { echoed } = await get('/echo/info/', 'parasol_csrf=abc.def');
  expect(echoed.headers.cookie).toBeUndefined();
  expect(echoed.rawHeaders.map((name) => name.toLowerCase())).not.toContain('cookie');
});

it("answers from the cache a request whose only cookie was Parasol's, and not one with another cookie", async () => {
  const path = `/echo/cached/${randomUUID()}`;
  const first = await get(path, 'parasol_csrf=abc.def');
  const second = await get(path, 'parasol_csrf=other');
  expect([first.headers['x-cache'], second.headers['x-cache'], second.text]).toEqual(['MISS', 'HIT', first.text]);
  expect((await get(path, 'parasol_csrf=abc.def; foo=bar')).headers['x-cache']).toBe('MISS');
});
