// Parasol's own cookies (the CSRF secret of its admin and signup pages, the
// admin session) never reach a backend, as API Umbrella strips its admin
// cookies (test/proxy/request_rewriting/test_cookie_stripping.rb): not even
// with strip_cookies empty. A request whose only cookie was Parasol's counts
// as one without cookies for the response cache. Nor does a backend set them
// in the client's browser (the security review's H2: a session fixation),
// whatever strip_response_cookies says, from its upstream or its response
// header settings.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_SETTINGS } from '../../src/api-backends/model.js';
import { compileResponseHeaders } from '../../src/gateway/response-header-settings.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

/** The Set-Cookie lines /backend/set-cookie/ answers with, one per `c` parameter. */
const SET_COOKIES: Readonly<Record<string, string>> = {
  admin: 'parasol_admin_session=x; Path=/admin; HttpOnly',
  csrf: 'parasol_csrf=chosen; Path=/',
  flash: ' parasol_flash=f',
  nameless: '=parasol_admin_session=x; Path=/admin',
  bare: 'parasol_csrf',
  own: 'session=1; Path=/',
  lookalike: 'parasol_admin_sessions=1',
  tracker: '_ga=GA1',
};

/** Paths under /backend/cached/ answer with a unique body that may be cached for a minute; /backend/set-cookie/ sets the cookies its query names. */
function cacheableBackend(request: IncomingMessage, response: ServerResponse): boolean {
  const url = new URL(request.url!, 'http://backend');
  if (url.pathname.startsWith('/backend/set-cookie/')) {
    response.writeHead(200, { 'Content-Type': 'text/plain', 'Set-Cookie': url.searchParams.getAll('c').map((name) => SET_COOKIES[name]!) });
    response.end('ok');
    return true;
  }
  if (!request.url!.startsWith('/backend/cached/')) return false;
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'max-age=60' });
  response.end(randomUUID());
  return true;
}

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ config: { strip_cookies: [], strip_response_cookies: ['^_ga$'], cache: { max_size_mb: 1 } }, upstream: cacheableBackend });
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

describe("Parasol's cookies set by a backend", () => {
  const setCookies = async (path: string, ...names: string[]) => {
    const reply = await send(fx.gw.url, `${path}?${names.map((name) => `c=${name}`).join('&')}`, { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.status).toBe(200);
    return [reply.headers['set-cookie'] ?? []].flat();
  };

  it("drops an upstream's Set-Cookie of Parasol's cookies, under any name a browser sends, and passes the others", async () => {
    expect(await setCookies('/echo/set-cookie/', 'admin', 'own')).toEqual([SET_COOKIES.own]);
    expect(await setCookies('/echo/set-cookie/', 'csrf', 'flash', 'nameless', 'bare')).toEqual([]);
    expect(await setCookies('/echo/set-cookie/', 'lookalike')).toEqual([SET_COOKIES.lookalike]);
  });

  it('drops them whatever strip_response_cookies says: all or none of the rest', async () => {
    expect(await setCookies('/echo/set-cookie/', 'admin', 'tracker')).toEqual([]);
    expect(await setCookies('/echo/set-cookie/', 'admin', 'tracker', 'own')).toEqual([SET_COOKIES.tracker, SET_COOKIES.own]);
  });

  it("refuses (422) response header settings that set Parasol's cookies, naming the field, and takes other cookies", async () => {
    const save = (settings: Record<string, unknown>, subSettings: Record<string, unknown> = {}) =>
      fx.gw.adminApi('POST', '/apis', { api: echoBackend(fx.echo, { settings, sub_settings: [{ http_method: 'any', regex: '^/x', settings: subSettings }] }) });
    const refused = "must not set one of Parasol's own cookies (parasol_admin_session, parasol_csrf, parasol_flash)";
    const override = await save({ override_response_headers: [{ key: 'X-Fine', value: '1' }, { key: 'set-cookie', value: 'parasol_admin_session=x; Path=/admin' }] });
    expect([override.status, override.body.errors]).toEqual([422, { 'settings.override_response_headers[1].value': [refused] }]);
    const defaults = await save({ default_response_headers_string: 'Set-Cookie: =parasol_csrf=chosen' });
    expect(defaults.body.errors).toEqual({ 'settings.default_response_headers[0].value': [refused] });
    const sub = await save({}, { override_response_headers: [{ key: 'Set-Cookie', value: 'parasol_flash=1' }] });
    expect(sub.body.errors).toEqual({ 'sub_settings[0].settings.override_response_headers[0].value': [refused] });
    expect((await save({ override_response_headers: [{ key: 'Set-Cookie', value: 'session=1' }], default_response_headers: [{ key: 'X-Parasol_csrf', value: 'parasol_csrf=1' }] })).status).toBe(201);
  });

  it('leaves out such a setting stored before it was refused', () => {
    const header = (key: string, value: string) => ({ id: randomUUID(), key, value });
    const compiled = compileResponseHeaders({
      ...EMPTY_SETTINGS,
      default_response_headers: [header('Set-Cookie', 'parasol_csrf=chosen')],
      override_response_headers: [header('Set-Cookie', 'parasol_admin_session=x'), header('Set-Cookie', 'session=1')],
    });
    expect(compiled).toMatchObject({ defaults: [], overrides: [{ key: 'Set-Cookie', value: 'session=1' }] });
  });
});
