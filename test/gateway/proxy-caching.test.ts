// The response cache, against a real backend whose answers each carry a
// unique X-Unique-Output: a HIT repeats the first answer's, a MISS has its
// own. The cases follow API Umbrella's test/proxy/caching tests.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startEchoUpstream } from '../helpers/echo-upstream.js';
import { basicAuth, echoBackend, send, startProxyFixture, type ProxyFixture, type Reply, type SendOptions } from './support.js';

const clock = new ManualClock(Date.now());
let fx: ProxyFixture;
/** Requests the backend answered, by path. */
const calls = new Map<string, number>();
/** Requests the backend was answering at once, by path: now and at most. */
const answering = new Map<string, number>();
const mostAnswering = new Map<string, number>();

/**
 * Paths under /backend/c/ answer with the headers the request lists in
 * X-Respond (JSON), the status in X-Respond-Status, after X-Respond-Delay-Ms;
 * with X-Respond-Gzip "asked" or "always" the body is gzipped; with
 * X-Respond-Cut-First the first request for a path has its connection cut
 * instead of an answer.
 */
function cacheTestBackend(request: IncomingMessage, response: ServerResponse): boolean {
  const path = request.url!.split('?')[0]!;
  if (!path.startsWith('/backend/c/')) return false;
  calls.set(path, (calls.get(path) ?? 0) + 1);
  const now = (answering.get(path) ?? 0) + 1;
  answering.set(path, now);
  mostAnswering.set(path, Math.max(now, mostAnswering.get(path) ?? 0));
  response.on('close', () => answering.set(path, answering.get(path)! - 1));
  const respond = JSON.parse(String(request.headers['x-respond'] ?? '{}')) as Record<string, string | string[]>;
  const unique = randomUUID();
  const text = `${unique} `.repeat(Number(request.headers['x-respond-repeat'] ?? 1));
  const gzip = request.headers['x-respond-gzip'];
  const zipped = gzip === 'always' || (gzip === 'asked' && String(request.headers['accept-encoding']).includes('gzip'));
  const body = zipped ? gzipSync(text) : Buffer.from(text);
  const headers = { 'Content-Type': 'text/plain', 'X-Unique-Output': unique, 'X-Received-Method': request.method!, ...(zipped ? { 'Content-Encoding': 'gzip' } : {}), ...respond };
  setTimeout(() => {
    if (request.headers['x-respond-cut-first'] !== undefined && calls.get(path) === 1) return void response.socket?.destroy();
    response.writeHead(Number(request.headers['x-respond-status'] ?? 200), headers);
    response.end(request.method === 'HEAD' ? undefined : body);
  }, Number(request.headers['x-respond-delay-ms'] ?? 0));
  return true;
}

beforeAll(async () => {
  fx = await startProxyFixture({ upstream: cacheTestBackend, context: { clock } });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

/** A path of its own for each test, so no two share an entry. */
const fresh = (rest = '') => `/echo/c/${randomUUID()}${rest}`;
/** Every backend here maps its prefix to /backend/: the calls for a path are counted by what follows /c/. */
const backendPathOf = (path: string) => `/backend/c/${path.split('/c/')[1]!.split('?')[0]}`;
const callsTo = (path: string) => calls.get(backendPathOf(path)) ?? 0;
/** The most requests for the path the backend answered at once (since forgetAtOnce). */
const mostAtOnce = (path: string) => mostAnswering.get(backendPathOf(path)) ?? 0;
const forgetAtOnce = (path: string) => mostAnswering.delete(backendPathOf(path));
/** Requests for a URL never cached wait for each other once their backend has sent an answer to keep: this one has. */
const backendHasSentOneToKeep = () => get(fresh(), { respond: MAX_AGE_60 });

function get(path: string, options: SendOptions & { respond?: Record<string, string | string[]>; key?: string } = {}): Promise<Reply> {
  const { respond, key, headers, ...rest } = options;
  return send(fx.gw.url, path, {
    ...rest,
    headers: { 'X-Api-Key': key ?? fx.apiKey, ...(respond === undefined ? {} : { 'X-Respond': JSON.stringify(respond) }), ...headers },
  });
}

/** Two requests, one after the other: the second a HIT of the first. */
async function expectCached(path: string, first: Parameters<typeof get>[1] = {}, second: Parameters<typeof get>[1] = first): Promise<[Reply, Reply]> {
  const one = await get(path, first);
  const two = await get(path, { ...first, ...second, headers: { ...first.headers, ...second.headers } });
  expect([one.status, two.status]).toEqual([200, 200]);
  expect([one.headers['x-cache'], two.headers['x-cache']]).toEqual(['MISS', 'HIT']);
  expect(two.headers['x-unique-output']).toBe(one.headers['x-unique-output']);
  expect(callsTo(path)).toBe(1);
  return [one, two];
}

/** Two requests, both reaching the backend. */
async function expectNotCached(path: string, first: Parameters<typeof get>[1] = {}, second: Parameters<typeof get>[1] = first): Promise<[Reply, Reply]> {
  const one = await get(path, first);
  const two = await get(path, { ...first, ...second, headers: { ...first.headers, ...second.headers } });
  expect([one.headers['x-cache'], two.headers['x-cache']]).toEqual(['MISS', 'MISS']);
  expect(two.headers['x-unique-output']).not.toBe(one.headers['x-unique-output']);
  expect(callsTo(path)).toBe(2);
  return [one, two];
}

const MAX_AGE_60 = { 'Cache-Control': 'max-age=60' };

describe('what is cached', () => {
  it('keeps a GET whose response has max-age, s-maxage (any case of the name) or a future Expires', async () => {
    await expectCached(fresh(), { respond: MAX_AGE_60 });
    await expectCached(fresh(), { respond: { 'Cache-Control': 's-maxage=60' } });
    await expectCached(fresh(), { respond: { 'CAcHE-cONTROL': 'max-age=60' } });
    const now = new Date(clock.now());
    await expectCached(fresh(), { respond: { Date: now.toUTCString(), Expires: new Date(clock.now() + 60_000).toUTCString() } });
  });

  it('keeps nothing without an explicit lifetime, or with Expires 0 or in the past, private, no-store, no-cache or max-age=0', async () => {
    await expectNotCached(fresh());
    const [expires0] = await expectNotCached(fresh(), { respond: { Expires: '0' } });
    expect(expires0.headers.expires).toBe('0');
    await expectNotCached(fresh(), { respond: { Expires: 'Sat, 05 Sep 2015 17:58:16 GMT' } });
    for (const control of ['private, max-age=60', 'no-store, max-age=60', 'no-cache, max-age=60', 'max-age=0', 'max-age=0, private, must-revalidate']) {
      await expectNotCached(fresh(), { respond: { 'Cache-Control': control } });
    }
  });

  it('keeps a response for Surrogate-Control, which outranks Cache-Control and never reaches the client', async () => {
    const [one, two] = await expectCached(fresh(), { respond: { 'Surrogate-Control': 'max-age=60', 'Cache-Control': 'max-age=0, private, must-revalidate' } });
    for (const reply of [one, two]) {
      expect(reply.headers['surrogate-control']).toBeUndefined();
      expect(reply.headers['cache-control']).toBe('max-age=0, private, must-revalidate');
    }
    await expectCached(fresh(), { respond: { 'SURrOGATE-CONtROL': 'max-age=60' } });
  });

  it('keeps nothing that sets a cookie or asks for credentials', async () => {
    await expectNotCached(fresh(), { respond: { ...MAX_AGE_60, 'Set-Cookie': 'foo=bar' } });
    await expectNotCached(fresh(), { respond: { ...MAX_AGE_60, 'WWW-Authenticate': 'Basic' } });
  });

  it('keeps nothing already stale when it arrives (an Age past its max-age): requests for it go to the backend', async () => {
    await backendHasSentOneToKeep();
    const path = fresh();
    const respond = { ...MAX_AGE_60, Age: '120' };
    await expectNotCached(path, { respond });
    const burst = () => Promise.all(Array.from({ length: 5 }, () => get(path, { respond, headers: { 'X-Respond-Delay-Ms': '200' } })));
    const replies = await burst();
    expect([callsTo(path), replies.filter((reply) => reply.headers['x-cache'] === 'MISS').length]).toEqual([7, 5]);
    // The first burst waited for its first answer; found not to be kept, the next goes to the backend at once.
    expect(mostAtOnce(path)).toBe(4);
    forgetAtOnce(path);
    await burst();
    expect([callsTo(path), mostAtOnce(path)]).toEqual([12, 5]);
  });

  it('keeps a 204 whose upstream states a Content-Length, as the 204 it is: no body', async () => {
    const path = fresh();
    const asked = { respond: { ...MAX_AGE_60, 'Content-Length': '10' }, headers: { 'X-Respond-Status': '204' } };
    const [one, two] = [await get(path, asked), await get(path, asked)];
    expect([one.headers['x-cache'], two.headers['x-cache'], callsTo(path)]).toEqual(['MISS', 'HIT', 1]);
    for (const reply of [one, two]) expect([reply.status, reply.text, reply.headers['content-length']]).toEqual([204, '', undefined]);
  });

  it('keeps a 301 without a lifetime, and not a 302', async () => {
    const permanent = fresh();
    const one = await get(permanent, { headers: { 'X-Respond-Status': '301' }, respond: { Location: '/elsewhere' } });
    const two = await get(permanent, { headers: { 'X-Respond-Status': '301' }, respond: { Location: '/elsewhere' } });
    expect([one.status, one.headers['x-cache'], two.status, two.headers['x-cache']]).toEqual([301, 'MISS', 301, 'HIT']);
    const temporary = fresh();
    for (let attempt = 0; attempt < 2; attempt++) expect((await get(temporary, { headers: { 'X-Respond-Status': '302' }, respond: { Location: '/elsewhere' } })).headers['x-cache']).toBe('MISS');
    expect(callsTo(temporary)).toBe(2);
  });

  it('answers again from the backend once the lifetime is over, then keeps the new answer', async () => {
    const path = fresh();
    await expectCached(path, { respond: { 'Cache-Control': 'max-age=2' } });
    clock.advance(2_000);
    const refetched = await get(path, { respond: { 'Cache-Control': 'max-age=2' } });
    expect(refetched.headers['x-cache']).toBe('MISS');
    expect((await get(path)).headers['x-unique-output']).toBe(refetched.headers['x-unique-output']);
    expect(callsTo(path)).toBe(2);
  });
});

describe('which requests', () => {
  it('answers a HEAD from a cached GET (empty body, X-Received-Method GET) but never stores a HEAD', async () => {
    const path = fresh();
    const got = await get(path, { respond: MAX_AGE_60 });
    const head = await get(path, { method: 'HEAD' });
    expect([head.status, head.headers['x-cache'], head.headers['x-received-method'], head.text]).toEqual([200, 'HIT', 'GET', '']);
    expect(head.headers['x-unique-output']).toBe(got.headers['x-unique-output']);
    const headsOnly = fresh();
    await expectNotCached(headsOnly, { method: 'HEAD', respond: MAX_AGE_60 });
  });

  it('never caches POST, PUT, PATCH, OPTIONS or DELETE, nor answers them with a cached GET', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'OPTIONS', 'DELETE']) {
      await expectNotCached(fresh(), { method, respond: MAX_AGE_60 });
      const path = fresh();
      await get(path, { respond: MAX_AGE_60 });
      const other = await get(path, { method, respond: MAX_AGE_60 });
      expect([other.headers['x-cache'], other.headers['x-received-method']]).toEqual(['MISS', method]);
    }
  });

  it('drops what it keeps for a URL once a POST, PUT, PATCH or DELETE to it succeeds (RFC 9111 section 4.4), and not after one that failed', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const path = fresh();
      await expectCached(path, { respond: MAX_AGE_60 });
      await get(path, { method, headers: { 'X-Respond-Status': '500' } });
      expect((await get(path)).headers['x-cache'], method).toBe('HIT');
      await get(path, { method });
      expect((await get(path, { respond: MAX_AGE_60 })).headers['x-cache'], method).toBe('MISS');
    }
  });

  it('neither answers nor keeps a request carrying a header some backends read as its host, scheme, path or method, which the key does not hold', async () => {
    for (const [name, value] of [
      ['Forwarded', 'host=evil.example;proto=https'],
      ['X-Forwarded-Prefix', '/evil'],
      ['X-HTTP-Method-Override', 'DELETE'],
      ['X-Original-URL', '/admin'],
    ]) {
      const path = fresh();
      await get(path, { respond: MAX_AGE_60, headers: { [name!]: value! } });
      expect((await get(path, { respond: MAX_AGE_60 })).headers['x-cache'], name).toBe('MISS');
      expect((await get(path, { headers: { [name!]: value! } })).headers['x-cache'], name).toBe('MISS');
    }
    // Also as the first answer of a backend the cache holds nothing of yet.
    await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/first-answer/', backend_prefix: '/backend/' }] }));
    const first = `/first-answer/c/${randomUUID()}`;
    await get(first, { respond: MAX_AGE_60, headers: { Forwarded: 'host=evil.example' } });
    expect((await get(first, { respond: MAX_AGE_60 })).headers['x-cache']).toBe('MISS');
  });

  it("keeps nothing for a client's no-store (RFC 9111 section 5.2.1.5)", async () => {
    await expectNotCached(fresh(), { respond: MAX_AGE_60, headers: { 'Cache-Control': 'no-store' } }, { headers: { 'Cache-Control': 'max-age=0, NO-STORE' } });
    await expectCached(fresh(), { respond: MAX_AGE_60, headers: { 'Cache-Control': 'no-stored-thing' } });
  });

  it('shares an entry across API keys and users, the api_key parameter left out of the key', async () => {
    const other = await fx.gw.createUser({ email: 'other@example.com' });
    const path = fresh();
    const one = await send(fx.gw.url, `${path}?a=1&api_key=${fx.apiKey}`, { headers: { 'X-Respond': JSON.stringify(MAX_AGE_60) } });
    const two = await send(fx.gw.url, `${path}?a=1&api_key=${other.apiKey}`);
    expect([one.headers['x-cache'], two.headers['x-cache']]).toEqual(['MISS', 'HIT']);
    // Another query is another entry.
    expect((await send(fx.gw.url, `${path}?a=2&api_key=${other.apiKey}`)).headers['x-cache']).toBe('MISS');
  });

  it('checks the key before the cache: a cached URL still refuses a wrong or missing key', async () => {
    const path = fresh();
    await expectCached(path, { respond: MAX_AGE_60 });
    expect((await get(path, { key: 'not-a-key-of-anyone-0000000000000000000000' })).status).toBe(403);
    expect((await send(fx.gw.url, path)).status).toBe(403);
  });

  it("caches no request with the client's own Authorization, and does with the key as a basic-auth user or credentials the backend adds", async () => {
    await expectNotCached(fresh(), { respond: MAX_AGE_60, headers: { Authorization: 'foo' } });
    await expectNotCached(fresh(), { respond: MAX_AGE_60, headers: { Authorization: basicAuth('something') } });
    const asUser = fresh();
    const viaBasic = (await send(fx.gw.url, asUser, { headers: { Authorization: basicAuth(fx.apiKey), 'X-Respond': JSON.stringify(MAX_AGE_60) } })).headers['x-cache'];
    expect([viaBasic, (await send(fx.gw.url, asUser, { headers: { Authorization: basicAuth(fx.apiKey) } })).headers['x-cache']]).toEqual(['MISS', 'HIT']);
    await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/authed/', backend_prefix: '/backend/' }], settings: { http_basic_auth: 'somebody:secret' } }));
    const authed = `/authed/c/${randomUUID()}`;
    const first = await get(authed, { respond: MAX_AGE_60 });
    expect([first.headers['x-cache'], (await get(authed)).headers['x-cache']]).toEqual(['MISS', 'HIT']);
  });

  it('strips analytics cookies on the way upstream, caching a request left without cookies and no other', async () => {
    const echoed = await send(fx.gw.url, `/echo/plain?api_key=${fx.apiKey}`, { headers: { Cookie: '__utma=foo; moo=boo; __utmz=bar; foo=bar; _ga=foo' } });
    expect(echoed.echoed.headers.cookie).toBe('moo=boo; foo=bar');
    const onlyStripped = await send(fx.gw.url, `/echo/plain?api_key=${fx.apiKey}`, { headers: { Cookie: '__UtMA=foo; is_returning=1' } });
    expect(onlyStripped.echoed.headers.cookie).toBeUndefined();
    await expectCached(fresh(), { respond: MAX_AGE_60, headers: { Cookie: '__utma=foo; _ga=foo' } });
    await expectNotCached(fresh(), { respond: MAX_AGE_60, headers: { Cookie: 'foo=bar; __utma=foo;' } });
    // Exact names: __ga is not _ga.
    await expectNotCached(fresh(), { respond: MAX_AGE_60, headers: { Cookie: '__ga=foo' } });
  });

  it('ignores a client Cache-Control: no-cache, as API Umbrella does', async () => {
    await expectCached(fresh(), { respond: MAX_AGE_60, headers: { 'Cache-Control': 'no-cache' } });
  });

  it('still counts a cached answer against the rate limits', async () => {
    await fx.gw.publishBackend(
      echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/limited/', backend_prefix: '/backend/' }], settings: { rate_limit_mode: 'custom', rate_limits: [{ duration: 60_000, limit_by: 'api_key', limit: 2, response_headers: true }] } }),
    );
    const path = `/limited/c/${randomUUID()}`;
    const statuses = [];
    for (let attempt = 0; attempt < 3; attempt++) statuses.push((await get(path, { respond: MAX_AGE_60 })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('headers of cached answers', () => {
  it('says HIT on every hit, passes on a backend X-Cache on a miss, and MISS on anything not from the cache', async () => {
    const path = fresh();
    await expectCached(path, { respond: MAX_AGE_60 });
    expect((await get(path)).headers['x-cache']).toBe('HIT');
    const backendMiss = fresh();
    const one = await get(backendMiss, { respond: { ...MAX_AGE_60, 'X-Cache': 'BACKEND-MISS' } });
    expect([one.headers['x-cache'], (await get(backendMiss)).headers['x-cache']]).toEqual(['BACKEND-MISS', 'HIT']);
    expect((await send(fx.gw.url, `/echo/plain?api_key=${fx.apiKey}`)).headers['x-cache']).toBe('MISS');
  });

  it('gives its Age, counting on from an Age the backend sent', async () => {
    const path = fresh();
    const one = await get(path, { respond: { ...MAX_AGE_60, Age: '3' } });
    expect(one.headers.age).toBe('3');
    expect((await get(path)).headers.age).toBe('3');
    clock.advance(1_100);
    expect((await get(path)).headers.age).toBe('4');
    clock.advance(2_000);
    expect((await get(path)).headers.age).toBe('6');
  });

  it('adds the rate-limit headers and request id of each request, not those of the cached one', async () => {
    const path = fresh();
    const [one, two] = await expectCached(path, { respond: MAX_AGE_60 });
    expect(two.headers['x-api-umbrella-request-id']).not.toBe(one.headers['x-api-umbrella-request-id']);
  });
});

describe('conditional requests', () => {
  const LAST_MODIFIED = 'Sun, 01 Nov 2026 10:00:00 GMT';
  const VALIDATED = { ...MAX_AGE_60, ETag: '"v1"', 'Last-Modified': LAST_MODIFIED };

  it('answers 304 without a body, with the ETag and no body headers, to a client that holds the cached answer', async () => {
    const path = fresh();
    const [first] = await expectCached(path, { respond: VALIDATED });
    for (const ifNoneMatch of ['"v1"', 'W/"v1"', '"other", "v1"', '*']) {
      const reply = await get(path, { respond: VALIDATED, headers: { 'If-None-Match': ifNoneMatch } });
      expect(reply.status, ifNoneMatch).toBe(304);
      expect(reply.text).toBe('');
      expect(reply.headers).toMatchObject({ etag: '"v1"', 'cache-control': 'max-age=60', 'x-cache': 'HIT', 'x-api-umbrella-request-id': expect.any(String) });
      expect([reply.headers['content-type'], reply.headers['x-unique-output'], reply.headers['last-modified']]).toEqual([undefined, undefined, undefined]);
    }
    const changed = await get(path, { respond: VALIDATED, headers: { 'If-None-Match': '"v0"' } });
    expect([changed.status, changed.headers['x-cache'], changed.text]).toEqual([200, 'HIT', first.text]);
    expect(callsTo(path)).toBe(1);
  });

  it('answers If-Modified-Since by Last-Modified, unless If-None-Match is sent, which decides alone', async () => {
    const path = fresh();
    await expectCached(path, { respond: VALIDATED });
    const statusFor = async (headers: Record<string, string>) => (await get(path, { respond: VALIDATED, headers })).status;
    expect(await statusFor({ 'If-Modified-Since': LAST_MODIFIED })).toBe(304);
    expect(await statusFor({ 'If-Modified-Since': 'Mon, 02 Nov 2026 10:00:00 GMT' })).toBe(304);
    expect(await statusFor({ 'If-Modified-Since': 'Sat, 31 Oct 2026 10:00:00 GMT' })).toBe(200);
    expect(await statusFor({ 'If-Modified-Since': 'not a date' })).toBe(200);
    expect(await statusFor({ 'If-Modified-Since': LAST_MODIFIED, 'If-None-Match': '"v0"' })).toBe(200);
  });

  it('gives a cached answer other than 200 in full, and a conditional miss goes to the backend and is not kept', async () => {
    const notFound = fresh();
    await get(notFound, { respond: VALIDATED, headers: { 'X-Respond-Status': '404' } });
    expect((await get(notFound, { respond: VALIDATED, headers: { 'X-Respond-Status': '404', 'If-None-Match': '"v1"' } })).status).toBe(404);
    const path = fresh();
    const conditional = await get(path, { respond: VALIDATED, headers: { 'If-None-Match': '"v1"' } });
    expect([conditional.status, conditional.headers['x-cache']]).toEqual([200, 'MISS']);
    expect((await get(path, { respond: VALIDATED })).headers['x-cache']).toBe('MISS');
  });
});

describe('Vary', () => {
  it('keeps one answer per value of the headers Vary names, and ignores others', async () => {
    const vary = { ...MAX_AGE_60, Vary: 'X-Custom' };
    await expectCached(fresh(), { respond: vary });
    await expectCached(fresh(), { respond: vary, headers: { 'X-Custom': 'foo' } });
    await expectNotCached(fresh(), { respond: vary, headers: { 'X-Custom': 'foo' } }, { headers: { 'X-Custom': 'bar' } });
    await expectCached(fresh(), { respond: MAX_AGE_60, headers: { 'X-Custom': 'foo' } }, { headers: { 'X-Custom': 'bar' } });
    const several = { ...MAX_AGE_60, Vary: 'X-Foo,Accept-Language,Accept' };
    const asked = { 'X-Foo': 'bar', 'Accept-Language': 'en-US', Accept: 'text/plain' };
    await expectCached(fresh(), { respond: several, headers: asked }, { headers: { 'X-Bar': 'foo' } });
    await expectNotCached(fresh(), { respond: several, headers: asked }, { headers: { Accept: 'application/json' } });
  });

  it('compares the values the backend got: the user the gateway names, cookies once stripped', async () => {
    const other = await fx.gw.createUser({ email: 'vary-user@example.com' });
    const perUser = fresh();
    const respond = { ...MAX_AGE_60, Vary: 'X-Api-User-Id' };
    const mine = await get(perUser, { respond, headers: { 'X-Api-User-Id': 'forged' } });
    const theirs = await get(perUser, { respond, key: other.apiKey, headers: { 'X-Api-User-Id': 'forged' } });
    expect([mine.headers['x-cache'], theirs.headers['x-cache']]).toEqual(['MISS', 'MISS']);
    const again = await get(perUser, { key: other.apiKey });
    expect([again.headers['x-cache'], again.headers['x-unique-output']]).toEqual(['HIT', theirs.headers['x-unique-output']]);
    await expectCached(fresh(), { respond: { ...MAX_AGE_60, Vary: 'Cookie' }, headers: { Cookie: '_ga=1' } }, { headers: { Cookie: '_ga=2' } });
  });

  it("keeps no answer that varies on the caller's key or Authorization, which the gateway takes out before the backend: it is each caller's own", async () => {
    const other = await fx.gw.createUser({ email: 'vary-key@example.com' });
    const byKey = fresh();
    await get(byKey, { respond: { ...MAX_AGE_60, Vary: 'X-Api-Key' } });
    expect((await get(byKey, { key: other.apiKey })).headers['x-cache']).toBe('MISS');
    const byAuthorization = fresh();
    await send(fx.gw.url, byAuthorization, { headers: { Authorization: basicAuth(fx.apiKey), 'X-Respond': JSON.stringify({ ...MAX_AGE_60, Vary: 'Authorization' }) } });
    expect((await send(fx.gw.url, byAuthorization, { headers: { Authorization: basicAuth(other.apiKey) } })).headers['x-cache']).toBe('MISS');
    expect(callsTo(byKey) + callsTo(byAuthorization)).toBe(4);
  });

  it('does not answer a HEAD from a gzipped entry for a client that does not take gzip', async () => {
    const path = fresh();
    await get(path, { respond: { ...MAX_AGE_60, Vary: 'Accept-Encoding' }, headers: { 'Accept-Encoding': 'gzip', 'X-Respond-Gzip': 'asked', 'X-Respond-Repeat': '60' } });
    const head = await get(path, { method: 'HEAD', respond: MAX_AGE_60, headers: { 'X-Respond-Gzip': 'asked' } });
    expect([head.headers['x-cache'], head.headers['content-encoding']]).toEqual(['MISS', undefined]);
    const zippedHead = await get(path, { method: 'HEAD', headers: { 'Accept-Encoding': 'gzip' } });
    expect([zippedHead.headers['x-cache'], zippedHead.headers['content-encoding']]).toEqual(['HIT', 'gzip']);
  });

  it('gives a client the coding it takes, whichever client filled the entry', async () => {
    const compressible = { respond: MAX_AGE_60, headers: { 'X-Respond-Repeat': '60' } };
    const gzip = { 'Accept-Encoding': 'gzip' };
    const identityFirst = fresh();
    const plain = await get(identityFirst, compressible);
    const zipped = await get(identityFirst, { headers: gzip });
    expect([plain.headers['content-encoding'], zipped.headers['x-cache'], zipped.headers['content-encoding']]).toEqual([undefined, 'HIT', 'gzip']);
    // A backend that gzips when asked: its gzipped answer is unzipped for a client that does not take gzip.
    const zippedFirst = fresh();
    const asked = { respond: { ...MAX_AGE_60, Vary: 'Accept-Encoding' }, headers: { ...gzip, 'X-Respond-Gzip': 'asked', 'X-Respond-Repeat': '60' } };
    const raw = await send(fx.gw.url, zippedFirst, { headers: { 'X-Api-Key': fx.apiKey, 'X-Respond': JSON.stringify(asked.respond), ...asked.headers } });
    expect(raw.headers['content-encoding']).toBe('gzip');
    const unzipped = await get(zippedFirst);
    expect([unzipped.headers['x-cache'], unzipped.headers['content-encoding']]).toEqual(['HIT', undefined]);
    expect(unzipped.text).toContain(String(raw.headers['x-unique-output']));
  });
});

describe('keys', () => {
  it('keeps answers over http and https apart, so an https redirect is never served over https', async () => {
    const path = fresh();
    const overHttps = { 'X-Forwarded-Proto': 'https' };
    await expectCached(path, { respond: MAX_AGE_60 });
    const secure = await get(path, { respond: MAX_AGE_60, headers: overHttps });
    expect([secure.headers['x-cache'], (await get(path, { headers: overHttps })).headers['x-cache']]).toEqual(['MISS', 'HIT']);
  });

  it('keeps the answers for two client hosts apart, the backend setting its own Host or not', async () => {
    const path = fresh();
    await expectCached(path, { respond: MAX_AGE_60, headers: { Host: 'tenant-a.example' } });
    const other = await get(path, { respond: MAX_AGE_60, headers: { Host: 'tenant-b.example' } });
    expect(other.headers['x-cache']).toBe('MISS');
  });

  it('caches nothing for a backend that is sent the API key, which is never kept in clear', async () => {
    await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/keyed/', backend_prefix: '/backend/' }], settings: { pass_api_key_header: true } }));
    await expectNotCached(`/keyed/c/${randomUUID()}`, { respond: MAX_AGE_60 });
  });

  it('starts afresh for a backend a publish changed (what it sends upstream), and keeps the entries of the backends it left as they were', async () => {
    const changing = { url_matches: [{ frontend_prefix: '/changing/', backend_prefix: '/backend/' }] };
    const id = await fx.gw.publishBackend(echoBackend(fx.echo, changing));
    const path = `/changing/c/${randomUUID()}`;
    const kept = fresh();
    await expectCached(path, { respond: MAX_AGE_60 });
    await expectCached(kept, { respond: MAX_AGE_60 });
    expect((await fx.gw.adminApi('PUT', `/apis/${id}`, { api: { settings: { headers: [{ key: 'X-Tenant', value: 'v2' }] } } })).status).toBe(204);
    expect((await fx.gw.adminApi('POST', '/config/publish', { config: { apis: { [id]: { publish: '1' } } } })).status).toBe(201);
    expect((await get(path, { respond: MAX_AGE_60 })).headers['x-cache']).toBe('MISS');
    expect((await get(kept)).headers['x-cache']).toBe('HIT');
  });

  it('keeps the answers of two backends apart when they differ only in backend host or server', async () => {
    const id = randomUUID();
    const second = await startEchoUpstream(cacheTestBackend);
    const backends = [
      { prefix: '/host-one/', overrides: { backend_host: 'one.example' } },
      { prefix: '/host-two/', overrides: { backend_host: 'two.example' } },
      { prefix: '/server-two/', overrides: { backend_host: 'one.example', servers: [{ host: '127.0.0.1', port: second.port }] } },
    ];
    for (const { prefix, overrides } of backends) await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: prefix, backend_prefix: '/backend/' }], ...overrides }));
    const outputs = [];
    for (const { prefix } of backends) {
      const path = `${prefix}c/${id}`;
      const one = await get(path, { respond: MAX_AGE_60 });
      const two = await get(path);
      expect([one.headers['x-cache'], two.headers['x-cache']]).toEqual(['MISS', 'HIT']);
      outputs.push(one.headers['x-unique-output']);
    }
    expect(new Set(outputs).size).toBe(3);
    expect(calls.get(`/backend/c/${id}`)).toBe(3);
    await second.close();
  });
});

describe('requests arriving together', () => {
  const together = (path: string, count: number, options: Parameters<typeof get>[1]) => Promise.all(Array.from({ length: count }, () => get(path, options)));
  const xCacheCounts = (replies: readonly Reply[]) => ({ HIT: replies.filter((reply) => reply.headers['x-cache'] === 'HIT').length, MISS: replies.filter((reply) => reply.headers['x-cache'] === 'MISS').length });

  it('wait for the one request that fetches an expired entry again, and all get its answer', async () => {
    const path = fresh();
    const respond = { 'Cache-Control': 'max-age=2' };
    await get(path, { respond });
    clock.advance(3_000);
    const replies = await together(path, 20, { respond, headers: { 'X-Respond-Delay-Ms': '300' } });
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    expect(callsTo(path)).toBe(2);
    expect(xCacheCounts(replies)).toEqual({ HIT: 19, MISS: 1 });
    expect(new Set(replies.map((reply) => reply.headers['x-unique-output'])).size).toBe(1);
  });

  it('wait for the first request for a URL never cached, as Traffic Server does in API Umbrella', async () => {
    await backendHasSentOneToKeep();
    const path = fresh();
    const replies = await together(path, 20, { respond: MAX_AGE_60, headers: { 'X-Respond-Delay-Ms': '300' } });
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    expect([callsTo(path), mostAtOnce(path)]).toEqual([1, 1]);
    expect(xCacheCounts(replies)).toEqual({ HIT: 19, MISS: 1 });
    expect(new Set(replies.map((reply) => reply.headers['x-unique-output'])).size).toBe(1);
  });

  it('are not held back at all for a backend that has sent nothing the cache may keep', async () => {
    await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/never-kept/', backend_prefix: '/backend/' }] }));
    const path = `/never-kept/c/${randomUUID()}`;
    const replies = await together(path, 10, { respond: { 'Cache-Control': 'private, max-age=2' }, headers: { 'X-Respond-Delay-Ms': '300' } });
    expect([callsTo(path), mostAtOnce(path), xCacheCounts(replies).MISS]).toEqual([10, 10, 10]);
  });

  it('go on to the backend once the answer they waited for may not be kept, and later ones for that URL do not wait', async () => {
    await backendHasSentOneToKeep();
    const never = fresh();
    const respondPrivate = { 'Cache-Control': 'private, max-age=2' };
    const first = await together(never, 10, { respond: respondPrivate, headers: { 'X-Respond-Delay-Ms': '100' } });
    expect([callsTo(never), xCacheCounts(first).MISS]).toEqual([10, 10]);
    // The first request's answer released the nine others, together.
    expect(mostAtOnce(never)).toBe(9);
    forgetAtOnce(never);
    await together(never, 10, { respond: respondPrivate, headers: { 'X-Respond-Delay-Ms': '300' } });
    expect([callsTo(never), mostAtOnce(never)]).toEqual([20, 10]);
  });

  it('go on to the backend once an expired URL may no longer be cached, and later ones do not wait', async () => {
    const path = fresh();
    const respondPrivate = { 'Cache-Control': 'private, max-age=2' };
    await get(path, { respond: { 'Cache-Control': 'max-age=2' } });
    clock.advance(3_000);
    const released = await together(path, 10, { respond: respondPrivate, headers: { 'X-Respond-Delay-Ms': '100' } });
    expect([callsTo(path), xCacheCounts(released).MISS, mostAtOnce(path)]).toEqual([11, 10, 9]);
    forgetAtOnce(path);
    await together(path, 10, { respond: respondPrivate, headers: { 'X-Respond-Delay-Ms': '300' } });
    expect([callsTo(path), mostAtOnce(path)]).toEqual([21, 10]);
  });

  it('do not wait for a request that failed: they go to the backend themselves', async () => {
    await backendHasSentOneToKeep();
    const path = fresh();
    const replies = await together(path, 5, { respond: MAX_AGE_60, headers: { 'X-Respond-Delay-Ms': '200', 'X-Respond-Cut-First': '1' } });
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 502]);
    expect([callsTo(path), mostAtOnce(path)]).toEqual([5, 4]);
  });

  it('stop waiting after 2 seconds and go to the backend themselves', async () => {
    const path = fresh();
    const respond = { 'Cache-Control': 'max-age=2' };
    await get(path, { respond });
    clock.advance(3_000);
    const started = performance.now();
    const replies = await together(path, 3, { respond, headers: { 'X-Respond-Delay-Ms': '2500' } });
    expect([callsTo(path), xCacheCounts(replies).MISS]).toEqual([4, 3]);
    expect(performance.now() - started).toBeGreaterThan(4_000);
  }, 10_000);
});

describe('bounds and settings', () => {
  let small: ProxyFixture;
  beforeAll(async () => {
    small = await startProxyFixture({
      upstream: cacheTestBackend,
      config: { cache: { max_size_mb: 1 }, strip_cookies: ['^foo[0-9]$'], strip_response_cookies: ['^foo[0-9]$', "^bar[^ '\"]$", '^Expires$'] },
    });
    await small.gw.publishBackend(echoBackend(small.echo));
  });
  afterAll(() => small.close());
  const getSmall = (path: string, headers: Record<string, string>) => send(small.gw.url, path, { headers: { 'X-Api-Key': small.apiKey, 'X-Respond': JSON.stringify(MAX_AGE_60), ...headers } });

  it('keeps no answer larger than an eighth of cache.max_size_mb', async () => {
    const large = fresh();
    // 37 bytes a repeat: about 150 KB, over 128 KB.
    for (let attempt = 0; attempt < 2; attempt++) expect((await getSmall(large, { 'X-Respond-Repeat': '4000' })).headers['x-cache']).toBe('MISS');
    const fits = fresh();
    await getSmall(fits, { 'X-Respond-Repeat': '2000' });
    expect((await getSmall(fits, {})).headers['x-cache']).toBe('HIT');
  });

  it('strips the cookies strip_cookies names instead of the defaults', async () => {
    const cached = fresh();
    await getSmall(cached, { Cookie: 'foo0=bar' });
    expect((await getSmall(cached, { Cookie: 'foo0=bar' })).headers['x-cache']).toBe('HIT');
    for (const cookie of ['fooa=bar', '__utma=foo']) {
      const path = fresh();
      await getSmall(path, { Cookie: cookie });
      expect((await getSmall(path, { Cookie: cookie })).headers['x-cache']).toBe('MISS');
    }
  });

  describe('strip_response_cookies', () => {
    const setting = (cookies: string[]) => ({ 'X-Respond': JSON.stringify({ ...MAX_AGE_60, 'Set-Cookie': cookies }) });

    it.each([
      ['one cookie', ['foo0=bar']],
      ['several cookies', ['foo0=bar', 'foo1=bar', 'Expires=bar']],
      ['a pattern with quotes in it', ['bar0=bar']],
      ['a name in another case', ['ExPiReS=bar']],
      ['a name that is also an attribute', ['Expires=a3fWa; Expires=Wed, 21 Oct 2015 07:28:00 GMT']],
    ])('drops every Set-Cookie when each names a listed cookie (%s), and the answer is cached', async (_case, cookies) => {
      const path = fresh();
      const first = await getSmall(path, setting(cookies));
      expect(first.headers['set-cookie']).toBeUndefined();
      const second = await getSmall(path, setting(cookies));
      expect(second.headers['x-cache']).toBe('HIT');
      expect(second.headers['set-cookie']).toBeUndefined();
      const head = await send(small.gw.url, path, { method: 'HEAD', headers: { 'X-Api-Key': small.apiKey } });
      expect([head.headers['x-cache'], head.headers['set-cookie']]).toEqual(['HIT', undefined]);
    });

    it.each([
      ['a name that does not match', ['fooa=bar']],
      ['a listed name only as an attribute', ['fooa=a3fWa; Expires=Wed, 21 Oct 2015 07:28:00 GMT']],
      ['not all of them listed', ['foo0=bar', 'fooa=bar']],
      ['a cookie without a name ("=" missing)', ['foo0']],
    ])('keeps every Set-Cookie, unchanged, when one is not listed (%s), and nothing is cached', async (_case, cookies) => {
      const path = fresh();
      const first = await getSmall(path, setting(cookies));
      expect([first.headers['set-cookie']].flat()).toEqual(cookies);
      expect((await getSmall(path, setting(cookies))).headers['x-cache']).toBe('MISS');
    });
  });

  it('caches nothing and sends no X-Cache with cache.max_size_mb 0', async () => {
    const off = await startProxyFixture({ upstream: cacheTestBackend, config: { cache: { max_size_mb: 0 } } });
    try {
      await off.gw.publishBackend(echoBackend(off.echo));
      const path = fresh();
      const replies = [];
      for (let attempt = 0; attempt < 2; attempt++) replies.push(await send(off.gw.url, path, { headers: { 'X-Api-Key': off.apiKey, 'X-Respond': JSON.stringify(MAX_AGE_60) } }));
      expect(replies.map((reply) => reply.headers['x-cache'])).toEqual([undefined, undefined]);
      expect(callsTo(path)).toBe(2);
    } finally {
      await off.close();
    }
  });
});
