import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, send, sendRaw, startProxyFixture, statusOf, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ config: { proxy: { max_header_size: 4096 } } });
  await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/api/', backend_prefix: '/internal/' }] }));
});
afterAll(() => fx.close());

const request = (target: string, extraHeaders = '') => `GET ${target} HTTP/1.1\r\nHost: gw\r\nX-Api-Key: KEY\r\nConnection: close\r\n${extraHeaders}\r\n`;

async function rawStatus(bytes: string): Promise<{ status: number; raw: string; reached: boolean }> {
  const before = fx.echo.requests.length;
  const raw = await sendRaw(fx.gw.url, bytes.replace('KEY', fx.apiKey));
  return { status: statusOf(raw), raw, reached: fx.echo.requests.length > before };
}

describe('bad input', () => {
  it('normalises dot segments before matching, so they cannot leave the prefix', async () => {
    for (const target of ['/api/%2e%2e/secret', '/api/../secret', '/api/%2E%2E/secret', '/api/.%2e/secret']) {
      const result = await rawStatus(request(target));
      expect(result.status, target).toBe(404);
      expect(result.reached, target).toBe(false);
    }
  });

  it('forwards a normalised path that stays under the prefix', async () => {
    const reply = await send(fx.gw.url, '/api/a/%2e%2e/b/./c', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.echoed.path).toBe('/internal/b/c');
  });

  it('answers 400 to paths climbing above the root', async () => {
    for (const target of ['/..', '/api/../../etc/passwd', '/%2e%2e/api/x']) {
      const result = await rawStatus(request(target));
      expect(result.status, target).toBe(400);
      expect(result.reached, target).toBe(false);
    }
  });

  it('answers 400 to malformed targets', async () => {
    for (const target of ['/api/%zz', '/api/%', '*', 'api/x', 'http://user@gw/api/x', 'http:///api/x', 'ftp://gw/api/x', 'gw:80']) {
      const result = await rawStatus(request(target));
      expect(result.status, target).toBe(400);
      expect(result.reached, target).toBe(false);
    }
  });

  it('takes an absolute-form target as the path it names, on its host instead of the Host header, as nginx does', async () => {
    await fx.gw.publishBackend(echoBackend(fx.echo, { frontend_host: 'absolute.example', url_matches: [{ frontend_prefix: '/abs/', backend_prefix: '/b/' }] }));
    const onItsHost = await rawStatus(request('http://absolute.example/abs/x?y=1'));
    expect(onItsHost.status).toBe(200);
    expect(fx.echo.requests.at(-1)!.url).toBe('/b/x?y=1');
    expect(await rawStatus(request('HTTP://absolute.example:80/abs/z'))).toMatchObject({ status: 200, reached: true });
    // The Host header names the backend's host, the target another one: the target's counts.
    const elsewhere = await rawStatus(request('http://other.example/abs/x', '').replace('Host: gw', 'Host: absolute.example'));
    expect(elsewhere).toMatchObject({ status: 404, reached: false });
  });

  it("answers a broken escape with the gateway's BAD_REQUEST in the client's format, never repeating the URL and its key", async () => {
    const json = await rawStatus(request(`/api/%zz?api_key=${fx.apiKey}`));
    expect(json.status).toBe(400);
    expect(json.raw).toContain('{"error":{"code":"BAD_REQUEST","message":"The request is malformed."}}');
    expect(json.raw).not.toContain(fx.apiKey);
    expect(json.reached).toBe(false);
    const xml = await rawStatus(request(`/api/%ff%fe?api_key=${fx.apiKey}`, 'Accept: application/xml\r\n'));
    expect(xml.status).toBe(400);
    expect(xml.raw).toContain('<code>BAD_REQUEST</code>');
    expect(xml.raw).not.toContain(fx.apiKey);
  });

  it('answers 400 to a Host that is not a host, which would otherwise be logged with a path in it', async () => {
    for (const host of ['api.example.com/evil', 'a b', 'x@y', 'host:80x', '[::1']) {
      const result = await rawStatus(`GET /api/x HTTP/1.1\r\nHost: ${host}\r\nX-Api-Key: KEY\r\nConnection: close\r\n\r\n`);
      expect(result.status, host).toBe(400);
      expect(result.reached, host).toBe(false);
    }
    for (const host of ['api.example.com', 'API.example.com:8080', '127.0.0.1:9', '[::1]:8080', 'under_score.example']) {
      const result = await rawStatus(`GET /api/x HTTP/1.1\r\nHost: ${host}\r\nX-Api-Key: KEY\r\nConnection: close\r\n\r\n`);
      expect(result.status, host).toBe(200);
    }
  });

  it("answers an HTTP/1.1 request without a Host, or with two, the gateway's 400 in the client's format, as RFC 9112 and nginx do", async () => {
    const bodyOf = (raw: string) => raw.slice(raw.indexOf('\r\n\r\n') + 4);
    const noHost = await rawStatus(`GET /api/x.xml HTTP/1.1\r\nX-Api-Key: KEY\r\nConnection: close\r\n\r\n`);
    expect(noHost).toMatchObject({ status: 400, reached: false });
    expect(bodyOf(noHost.raw)).toBe('<?xml version="1.0" encoding="UTF-8"?><response><error><code>BAD_REQUEST</code><message>The request is malformed.</message></error></response>');
    for (const header of ['Content-Type: application/xml', 'X-Frame-Options: DENY', 'X-Api-Umbrella-Request-Id: ']) expect(noHost.raw).toContain(`\r\n${header}`);
    const twoHosts = await rawStatus(`GET /api/x HTTP/1.1\r\nHost: gw\r\nhost: elsewhere.example\r\nAccept: text/csv\r\nX-Api-Key: KEY\r\nConnection: close\r\n\r\n`);
    expect(twoHosts).toMatchObject({ status: 400, reached: false });
    expect(bodyOf(twoHosts.raw)).toBe('Error Code,Error Message\nBAD_REQUEST,The request is malformed.\n');
    const upgrade = await rawStatus(`GET /api/ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Api-Key: KEY\r\n\r\n`);
    expect(upgrade).toMatchObject({ status: 400, reached: false });
    // HTTP/1.0 has no Host to require: the wildcard-host backend takes it.
    expect(await rawStatus(`GET /api/x HTTP/1.0\r\nX-Api-Key: KEY\r\n\r\n`)).toMatchObject({ status: 200, reached: true });
  });

  it('answers 431 to oversized headers', async () => {
    const result = await rawStatus(request('/api/x', `X-Big: ${'a'.repeat(8000)}\r\n`));
    expect(result.status).toBe(431);
    expect(result.reached).toBe(false);
    // A HEAD's answer states the length of the body it does not carry.
    const head = await rawStatus(request('/api/x', `X-Big: ${'a'.repeat(8000)}\r\n`).replace(/^GET/, 'HEAD'));
    expect(head.status).toBe(431);
    expect(head.raw).toMatch(/\r\nContent-Length: [1-9]\d*\r\n/);
    expect(head.raw.endsWith('\r\n\r\n')).toBe(true);
  });

  it('answers 400 to invalid header bytes', async () => {
    for (const header of ['X-Bad: a\u0000b\r\n', 'Bad Name: x\r\n', 'X-Bad: a\rb\r\n', ' X-Folded: x\r\n']) {
      const result = await rawStatus(request('/api/x', header));
      expect(result.status, JSON.stringify(header)).toBe(400);
      expect(result.reached).toBe(false);
    }
  });

  it('answers 400 to smuggling attempts', async () => {
    const post = (headers: string, body: string) => `POST /api/x HTTP/1.1\r\nHost: gw\r\nX-Api-Key: KEY\r\n${headers}\r\n${body}`;
    const attempts = [
      post('Content-Length: 4\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\nGET /api/smuggled HTTP/1.1\r\nHost: gw\r\n\r\n'),
      post('Content-Length: 4\r\nContent-Length: 40\r\n', 'abcd'),
      post('Content-Length: 4\r\nContent-Length: 4\r\n', 'abcd'),
      post('Transfer-Encoding: chunked, identity\r\n', '0\r\n\r\n'),
      post('Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n', '0\r\n\r\n'),
      post('Content-Length: -1\r\n', ''),
    ];
    for (const attempt of attempts) {
      const result = await rawStatus(attempt);
      expect(result.status, attempt).toBe(400);
      expect(result.reached, attempt).toBe(false);
    }
  });

  it("answers what the HTTP parser refuses in API Umbrella's error shapes, in the client's format, with the headers of every gateway error", async () => {
    const bodyOf = (raw: string) => raw.slice(raw.indexOf('\r\n\r\n') + 4);
    const oversized = await rawStatus(request('/api/x', `X-Big: ${'a'.repeat(8000)}\r\n`));
    expect(JSON.parse(bodyOf(oversized.raw))).toEqual({ error: { code: 'REQUEST_HEADERS_TOO_LARGE', message: 'The request headers are too large.' } });
    for (const header of ['Access-Control-Allow-Origin: *', 'X-Content-Type-Options: nosniff', 'X-Frame-Options: DENY', 'Content-Type: application/json']) {
      expect(oversized.raw).toContain(`\r\n${header}\r\n`);
    }
    const rawUtf8Query = await rawStatus(request('/api/x.xml?q=\u00e9'));
    expect(rawUtf8Query.status).toBe(400);
    expect(bodyOf(rawUtf8Query.raw)).toBe('<?xml version="1.0" encoding="UTF-8"?><response><error><code>BAD_REQUEST</code><message>The request URL is malformed.</message></error></response>');
    const framedTwice = await rawStatus(`POST /api/x HTTP/1.1\r\nHost: gw\r\nAccept: text/csv\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    expect([framedTwice.status, bodyOf(framedTwice.raw)]).toEqual([400, 'Error Code,Error Message\nBAD_REQUEST,The request is malformed.\n']);
  });

  it('answers 501 to a body coded before it was chunked, or in a coding alone, as nginx does in front of API Umbrella, rather than pass it on without its coding', async () => {
    for (const coding of ['gzip, chunked', 'deflate,chunked', 'test123, chunked', 'gzip', 'compress', 'deflate', 'test123', 'xchunked']) {
      const result = await rawStatus(`POST /api/x HTTP/1.1\r\nHost: gw\r\nX-Api-Key: KEY\r\nTransfer-Encoding: ${coding}\r\n\r\n6\r\nfoobar\r\n0\r\n\r\n`);
      expect(result.status, coding).toBe(501);
      expect(result.reached, coding).toBe(false);
      expect(result.raw).toContain('"code":"NOT_IMPLEMENTED"');
    }
    expect((await rawStatus(`POST /api/x HTTP/1.1\r\nHost: gw\r\nX-Api-Key: KEY\r\nTransfer-Encoding: Chunked\r\n\r\n6\r\nfoobar\r\n0\r\n\r\n`)).status).not.toBe(501);
  });

  it('answers 400 to an HTTP/1.0 request with a Transfer-Encoding, whose framing RFC 9112 calls faulty, as nginx does', async () => {
    const result = await rawStatus(`POST /api/x HTTP/1.0\r\nHost: gw\r\nX-Api-Key: KEY\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`);
    expect([result.status, result.reached]).toEqual([400, false]);
    expect(result.raw).toContain('"code":"BAD_REQUEST"');
  });

  it("answers a CONNECT, which asks for a tunnel rather than an API, 405 in the client's format instead of closing without a word", async () => {
    for (const [accept, body] of [
      ['application/json', '{"error":{"code":"METHOD_NOT_ALLOWED","message":"The request method is not allowed."}}'],
      ['text/csv', 'Error Code,Error Message\nMETHOD_NOT_ALLOWED,The request method is not allowed.\n'],
    ]) {
      const result = await rawStatus(`CONNECT gw:443 HTTP/1.1\r\nHost: gw:443\r\nAccept: ${accept}\r\n\r\n`);
      expect([result.status, result.reached, result.raw.slice(result.raw.indexOf('\r\n\r\n') + 4)]).toEqual([405, false, body]);
      expect(result.raw).toContain('\r\nConnection: close\r\n');
    }
  });

  it('answers a request before refusing the bytes that follow it on the connection, as nginx: pipelined garbage after it, or anything after Connection: close', async () => {
    const valid = (close: boolean) => `GET /api/first HTTP/1.1\r\nHost: gw\r\nX-Api-Key: ${fx.apiKey}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
    const garbage = await sendRaw(fx.gw.url, `${valid(false)}NOT HTTP AT ALL\r\n\r\n`);
    const [first, second, ...rest] = garbage.split(/(?=HTTP\/1\.1 )/);
    expect([statusOf(first!), first!.includes('"path":"/internal/first"'), statusOf(second ?? ''), rest]).toEqual([200, true, 400, []]);
    const afterClose = await sendRaw(fx.gw.url, `${valid(true)}GET /api/second HTTP/1.1\r\nHost: gw\r\n\r\n`);
    expect(afterClose.split(/(?=HTTP\/1\.1 )/).map(statusOf)).toEqual([200]);
  });

  it('keeps serving after all of it', async () => {
    const reply = await send(fx.gw.url, '/api/still-alive', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.status).toBe(200);
  });
});

describe('header size by default', () => {
  let defaults: ProxyFixture;
  beforeAll(async () => {
    defaults = await startProxyFixture();
  });
  afterAll(() => defaults.close());

  /** `total` bytes of headers in lines of 4,048, as API Umbrella's test sends them. */
  const headerLines = (total: number) =>
    Array.from({ length: Math.ceil(total / 4048) }, (_, index) => `X-Fill-${index}: ${'a'.repeat(Math.min(4048, total - index * 4048) - 12)}\r\n`).join('');

  // The gateway's own endpoint: an upstream (Node's 16 KB by default) would answer 431 itself.
  it("takes about 32 KB of headers, as API Umbrella's nginx does, and answers 431 above", async () => {
    const withHeaders = async (total: number) => statusOf(await sendRaw(defaults.gw.url, request('/api-umbrella/v1/health', headerLines(total))));
    expect(await withHeaders(32_000)).toBe(200);
    expect(await withHeaders(34_000)).toBe(431);
  });

  // Node dropped the lines past its count without a word, a Content-Length among them: the upstream got a POST without its body.
  it('takes 1,000 header lines and answers 431 above, where the lines past them were dropped', async () => {
    await defaults.gw.publishBackend(echoBackend(defaults.echo, { url_matches: [{ frontend_prefix: '/api/', backend_prefix: '/' }] }));
    const post = (lines: number) =>
      `POST /api/form HTTP/1.1\r\nHost: gw\r\nX-Api-Key: ${defaults.apiKey}\r\nConnection: close\r\n${'F: 1\r\n'.repeat(lines - 4)}Content-Length: 5\r\n\r\nhello`;
    const before = defaults.echo.requests.length;
    const taken = await sendRaw(defaults.gw.url, post(1000));
    expect([statusOf(taken), taken.includes('"body":"hello"')]).toEqual([200, true]);
    const refused = await sendRaw(defaults.gw.url, post(1001));
    expect(statusOf(refused)).toBe(431);
    expect(refused).toContain('"code":"REQUEST_HEADERS_TOO_LARGE"');
    const upgrade = await sendRaw(defaults.gw.url, post(1001).replace('POST', 'GET').replace('Connection: close', 'Connection: Upgrade\r\nUpgrade: websocket'));
    expect(statusOf(upgrade)).toBe(431);
    expect(defaults.echo.requests.length - before).toBe(1);
  });
});
