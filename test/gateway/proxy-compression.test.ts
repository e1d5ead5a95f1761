// Response compression as API Umbrella's nginx does it: gzip for text-like
// bodies of 1,000 bytes or more when the client takes it, unzipping for a
// client that does not, and Accept-Encoding normalized on the way up.
import type { ServerResponse } from 'node:http';
import { brotliCompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { echoBackend, open, send, sendRaw, startProxyFixture, type ProxyFixture } from './support.js';

/** Compressible and recognisable: a JSON-ish text of exactly `length` bytes. */
function text(length: number): string {
  return '{"n":"'.concat('abcdefghij'.repeat(Math.ceil(length / 10))).slice(0, length - 2).concat('"}');
}

let held: ServerResponse | null = null;
const heldReady: { resolve: () => void; promise: Promise<void> } = deferred();

function deferred(): { resolve: () => void; promise: Promise<void> } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { resolve, promise };
}

// Each answer says which Accept-Encoding the upstream got.
const upstream: CustomHandler = (request, response) => {
  const url = new URL(request.url ?? '/', 'http://upstream');
  const seen = { 'x-seen-accept-encoding': String(request.headers['accept-encoding'] ?? '(none)') };
  const length = Number(url.searchParams.get('length') ?? 1000);
  const type = url.searchParams.get('type') ?? 'application/json';
  const status = Number(url.searchParams.get('status') ?? 200);
  if (url.pathname === '/backend/sized') {
    const extra: Record<string, string> = {};
    for (const [name, value] of url.searchParams) if (name.startsWith('h-')) extra[name.slice(2)] = value;
    // ?untyped: no Content-Type at all (type= sends an empty one).
    const typed = url.searchParams.has('untyped') ? {} : { 'content-type': type };
    response.writeHead(status, { ...seen, ...extra, ...typed, 'content-length': String(length) });
    response.end(request.method === 'HEAD' ? undefined : text(length));
  } else if (url.pathname === '/backend/bodiless') {
    // No content: a 204 or 304, or an announced empty body; the Content-Type empty (?empty) or left out.
    const typed = url.searchParams.has('empty') ? { 'content-type': '' } : {};
    response.writeHead(status, { ...typed, ...(status === 200 ? { 'content-length': '0' } : {}) });
    response.end();
  } else if (url.pathname === '/backend/chunked') {
    response.writeHead(200, { ...seen, 'content-type': 'text/plain' });
    response.write('first;');
    held = response;
    heldReady.resolve();
  } else if (url.pathname === '/backend/pre-gzipped') {
    // Gzip when asked for it, or always with ?force (a backend that knows only gzip).
    const zipped = request.headers['accept-encoding'] === 'gzip' || url.searchParams.has('force');
    const body = text(length);
    response.writeHead(200, { ...seen, 'content-type': 'application/json', ...(zipped ? { 'content-encoding': 'gzip' } : {}) });
    response.end(zipped ? gzipSync(body) : body);
  } else if (url.pathname === '/backend/gzip-range') {
    response.writeHead(206, { ...seen, 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-range': 'bytes 0-9/100' });
    response.end(gzipSync(text(100)).subarray(0, 10));
  } else if (url.pathname === '/backend/empty-gzip') {
    // An empty body labelled gzip: as a 200 with a length, chunked, or a redirect.
    const variant = url.searchParams.get('variant');
    const headers = { ...seen, 'content-type': 'application/json', 'content-encoding': 'gzip' };
    if (variant === 'length') response.writeHead(200, { ...headers, 'content-length': '0' });
    else if (variant === 'redirect') response.writeHead(302, { ...headers, location: '/elsewhere' });
    else response.writeHead(200, headers);
    response.end();
  } else if (url.pathname === '/backend/two-codings') {
    response.setHeader('content-type', 'text/plain');
    response.setHeader('content-encoding', ['br', 'gzip']);
    response.end(gzipSync(brotliCompressSync(text(3000))));
  } else if (url.pathname === '/backend/empty-coding') {
    response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': '', 'content-length': '2000' });
    response.end(text(2000));
  } else if (url.pathname === '/backend/not-gzip') {
    response.writeHead(200, { ...seen, 'content-type': 'application/json', 'content-encoding': 'gzip' });
    response.end('this was never gzipped');
  } else return false;
  return true;
};

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ upstream });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

interface Fetched {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

async function get(path: string, acceptEncoding?: string, method = 'GET'): Promise<Fetched> {
  const headers: Record<string, string> = { 'X-Api-Key': fx.apiKey };
  if (acceptEncoding !== undefined) headers['Accept-Encoding'] = acceptEncoding;
  const response = await open(fx.gw.url, path, { headers, method } as never);
  return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
}

describe('compressing', () => {
  it('gzips a compressible body of 1,000 bytes for a client that takes gzip', async () => {
    const reply = await get('/echo/sized?length=1000', 'gzip, deflate, br');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(reply.headers['content-length']).toBeUndefined();
    expect(reply.headers.vary).toBe('Accept-Encoding');
    expect(reply.body.length).toBeLessThan(1000);
    expect(gunzipSync(reply.body).toString()).toBe(text(1000));
    expect(reply.headers['x-seen-accept-encoding']).toBe('gzip');
  });

  it('leaves a body under 1,000 bytes as it is, without Vary', async () => {
    const reply = await get('/echo/sized?length=999', 'gzip');
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.headers['content-length']).toBe('999');
    expect(reply.headers.vary).toBeUndefined();
    expect(reply.body.toString()).toBe(text(999));
  });

  it('sends the body as it is, with Vary, to a client that does not take gzip', async () => {
    for (const acceptEncoding of [undefined, 'deflate, br', 'gzip;q=0']) {
      const reply = await get('/echo/sized?length=5000', acceptEncoding);
      expect(reply.headers['content-encoding'], acceptEncoding).toBeUndefined();
      expect(reply.headers['content-length']).toBe('5000');
      expect(reply.headers.vary).toBe('Accept-Encoding');
      expect(reply.body.toString()).toBe(text(5000));
    }
  });

  it.each([
    'application/atom+xml',
    'application/javascript',
    'application/json; charset=utf-8',
    'application/rss+xml',
    'application/x-javascript',
    'application/xml',
    'text/css',
    'text/csv',
    'Text/HTML',
    'text/javascript',
    'text/plain',
    'text/xml',
  ])('gzips %s', async (type) => {
    const reply = await get(`/echo/sized?length=2000&type=${encodeURIComponent(type)}`, 'gzip');
    expect(reply.headers['content-type']).toBe(type);
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(reply.body).toString()).toBe(text(2000));
  });

  it.each(['image/png', 'application/octet-stream', 'application/x-whatever-unknown'])('leaves %s alone', async (type) => {
    const reply = await get(`/echo/sized?length=2000&type=${encodeURIComponent(type)}`, 'gzip');
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.headers.vary).toBeUndefined();
    expect(reply.body.toString()).toBe(text(2000));
  });

  it('gzips 403 and 404 answers too, but not other statuses, HEAD or HTTP/1.0', async () => {
    expect((await get('/echo/sized?length=2000&status=404', 'gzip')).headers['content-encoding']).toBe('gzip');
    expect((await get('/echo/sized?length=2000&status=403', 'gzip')).headers['content-encoding']).toBe('gzip');
    const created = await get('/echo/sized?length=2000&status=201', 'gzip');
    expect(created.headers['content-encoding']).toBeUndefined();
    expect(created.body.toString()).toBe(text(2000));
    const head = await get('/echo/sized?length=2000', 'gzip', 'HEAD');
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBe('2000');
    const old = await http10('/echo/sized?length=2000');
    expect(old.head).not.toContain('content-encoding');
    expect(old.body).toBe(text(2000));
  });

  it('makes the ETag weak and drops Accept-Ranges on a gzipped body', async () => {
    const reply = await get('/echo/sized?length=2000&h-etag=%22v1%22&h-accept-ranges=bytes', 'gzip');
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(reply.headers.etag).toBe('W/"v1"');
    expect(reply.headers['accept-ranges']).toBeUndefined();
    const plain = await get('/echo/sized?length=2000&h-etag=%22v1%22&h-accept-ranges=bytes');
    expect(plain.headers.etag).toBe('"v1"');
    expect(plain.headers['accept-ranges']).toBe('bytes');
  });

  it('keeps an upstream Vary and adds Accept-Encoding beside it, once', async () => {
    const reply = await get('/echo/sized?length=2000&h-vary=Origin', 'gzip');
    expect(reply.headers.vary).toEqual(['Origin', 'Accept-Encoding']);
    const already = await get('/echo/sized?length=2000&h-vary=Origin,%20Accept-Encoding', 'gzip');
    expect(already.headers.vary).toBe('Origin, Accept-Encoding');
  });

  it('does not touch a body the upstream marks no-transform', async () => {
    const reply = await get('/echo/sized?length=2000&h-cache-control=public,%20no-transform', 'gzip');
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.body.toString()).toBe(text(2000));
  });

  it('streams a chunked body as gzip, each upstream chunk as it comes', async () => {
    const response = await open(fx.gw.url, '/echo/chunked', { headers: { 'X-Api-Key': fx.apiKey, 'Accept-Encoding': 'gzip' } });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['transfer-encoding']).toBe('chunked');
    await heldReady.promise;
    const iterator = response.body[Symbol.asyncIterator]();
    // The first chunk arrives while the upstream is still holding the response open.
    const first = (await iterator.next()).value as Buffer;
    const received = [first];
    held!.end('second');
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) received.push(next.value as Buffer);
    expect(gunzipSync(Buffer.concat(received)).toString()).toBe('first;second');
  });

  it('counts the compressed bytes as the response size in analytics', async () => {
    const reply = await get('/echo/sized?length=50000&type=text/plain', 'gzip');
    const requestId = reply.headers['x-api-umbrella-request-id'];
    fx.gw.context.analytics.flush();
    const stored = fx.gw.context.db.prepare('SELECT response_size FROM analytics_logs WHERE request_id = ?').get(requestId) as { response_size: number };
    expect(stored.response_size).toBeGreaterThan(reply.body.length);
    expect(stored.response_size).toBeLessThan(reply.body.length + 1000);
  });
});

describe('a body without a type', () => {
  // API Umbrella's test_content_type_header.rb and the "" case of test_compressible_types.rb.
  it('sends an empty upstream Content-Type as text/plain, gzipped as text/plain is, and keeps one it does not know', async () => {
    const reply = await get('/echo/sized?length=1000&type=', 'gzip');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/plain');
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(reply.body).toString()).toBe(text(1000));
    const plain = await get('/echo/sized?length=1000&type=');
    expect(plain.headers['content-type']).toBe('text/plain');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(plain.body.toString()).toBe(text(1000));
    // A type it does not know is kept, and not gzipped.
    const unknown = await get('/echo/sized?length=1000&type=Qwerty', 'gzip');
    expect(unknown.headers['content-type']).toBe('Qwerty');
    expect(unknown.headers['content-encoding']).toBeUndefined();
  });

  it('gives a body the upstream sent no Content-Type text/plain too, for GET and HEAD alike, and logs it', async () => {
    const reply = await get('/echo/sized?length=2000&untyped', 'gzip');
    expect(reply.headers['content-type']).toBe('text/plain');
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(reply.body).toString()).toBe(text(2000));
    const head = await get('/echo/sized?length=2000&untyped', 'gzip', 'HEAD');
    expect(head.headers['content-type']).toBe('text/plain');
    fx.gw.context.analytics.flush();
    const stored = fx.gw.context.db
      .prepare('SELECT response_content_type AS type FROM analytics_logs WHERE request_id = ?')
      .get(reply.headers['x-api-umbrella-request-id']) as { type: string | null };
    expect(stored.type).toBe('text/plain');
  });

  it.each([
    ['a 204', '?status=204'],
    ['a 304', '?status=304'],
    ['a Content-Length of 0', '?status=200'],
  ])('adds no type to a response without content: %s, its Content-Type empty or left out', async (_name, query) => {
    for (const variant of ['', '&empty']) {
      const reply = await get(`/echo/bodiless${query}${variant}`, 'gzip');
      expect(reply.headers['content-type'], variant).toBeUndefined();
      expect(reply.body.length).toBe(0);
    }
  });

  it('answers a cached copy with the same text/plain, gzipped or not as the client takes it', async () => {
    const path = '/echo/sized?length=2000&type=&h-cache-control=max-age%3D60&n=untyped-cached';
    const first = await get(path, 'gzip');
    const hit = await get(path);
    const zippedHit = await get(path, 'gzip');
    expect([first, hit, zippedHit].map((reply) => reply.headers['x-cache'])).toEqual(['MISS', 'HIT', 'HIT']);
    for (const reply of [first, hit, zippedHit]) expect(reply.headers['content-type']).toBe('text/plain');
    expect(hit.body.toString()).toBe(text(2000));
    expect(zippedHit.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zippedHit.body).toString()).toBe(text(2000));
  });
});

describe('Accept-Encoding on the way up', () => {
  it.each([
    ['gzip', 'gzip'],
    ['gzip, deflate, compress', 'gzip'],
    ['deflate, compress', '(none)'],
    ['gzipp', '(none)'],
    ['gzip;q=0', '(none)'],
    ['gzip;q=0.00', '(none)'],
    ['gzip;q=0.01', 'gzip'],
    ['identity; q=1.0, gzip;q=0.5, *;q=0', 'gzip'],
    ['x-gzip', 'gzip'],
    ['', '(none)'],
  ])('%j reaches the upstream as %s', async (sent, received) => {
    const reply = await get('/echo/sized?length=10', sent);
    expect(reply.headers['x-seen-accept-encoding']).toBe(received);
  });
});

describe('a backend that gzips itself', () => {
  it('passes its gzip through to a client that takes it', async () => {
    const reply = await get('/echo/pre-gzipped?length=3000', 'gzip');
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(reply.headers.vary).toBe('Accept-Encoding');
    expect(reply.body).toEqual(gzipSync(text(3000)));
  });

  it('unzips a body gzipped regardless for a client that does not take gzip', async () => {
    const reply = await get('/echo/pre-gzipped?length=3000&force=1');
    expect(reply.headers['x-seen-accept-encoding']).toBe('(none)');
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.headers.vary).toBe('Accept-Encoding');
    expect(reply.body.toString()).toBe(text(3000));
  });

  it('passes a range of a gzipped body through as it is: it would not unzip on its own', async () => {
    const reply = await get('/echo/gzip-range');
    expect(reply.status).toBe(206);
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(reply.body).toEqual(gzipSync(text(100)).subarray(0, 10));
  });

  it.each(['length', 'chunked', 'redirect'])('answers an empty body marked gzip (%s) as an empty body, not a cut connection', async (variant) => {
    const reply = await get(`/echo/empty-gzip?variant=${variant}`);
    expect(reply.status).toBe(variant === 'redirect' ? 302 : 200);
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.body.length).toBe(0);
  });

  it('passes a body coded twice (two Content-Encoding headers) through as it is, both codings named', async () => {
    const reply = await get('/echo/two-codings');
    expect(reply.headers['content-encoding']).toEqual(['br', 'gzip']);
    expect(reply.body).toEqual(gzipSync(brotliCompressSync(text(3000))));
  });

  it('replaces an empty upstream Content-Encoding with gzip rather than adding a second', async () => {
    const reply = await get('/echo/empty-coding', 'gzip');
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(reply.body).toString()).toBe(text(2000));
  });

  it('cuts the response off when a body marked gzip does not unzip, and goes on serving', async () => {
    await expect(get('/echo/not-gzip')).rejects.toThrow();
    expect((await get('/echo/sized?length=10')).status).toBe(200);
  });
});

describe('proxy.gzip: false', () => {
  let off: ProxyFixture;
  beforeAll(async () => {
    off = await startProxyFixture({ upstream, config: { proxy: { gzip: false } } });
    await off.gw.publishBackend(echoBackend(off.echo));
  });
  afterAll(() => off.close());

  it('leaves every body as the upstream sent it', async () => {
    const plain = await send(off.gw.url, '/echo/sized?length=5000', { headers: { 'X-Api-Key': off.apiKey, 'Accept-Encoding': 'gzip' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBeUndefined();
    expect(plain.text).toBe(text(5000));
    const zipped = await open(off.gw.url, '/echo/pre-gzipped?length=3000&force=1', { headers: { 'X-Api-Key': off.apiKey } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(await zipped.body.arrayBuffer())).toString()).toBe(text(3000));
  });
});

/** An HTTP/1.0 request, which nginx never answers gzipped (gzip_http_version 1.1). */
async function http10(path: string): Promise<{ head: string; body: string }> {
  const raw = await sendRaw(fx.gw.url, `GET ${path} HTTP/1.0\r\nHost: localhost\r\nX-Api-Key: ${fx.apiKey}\r\nAccept-Encoding: gzip\r\n\r\n`);
  const split = raw.indexOf('\r\n\r\n');
  return { head: raw.slice(0, split).toLowerCase(), body: raw.slice(split + 4) };
}
