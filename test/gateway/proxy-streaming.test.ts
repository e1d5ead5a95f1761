import { request as httpRequest, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoUpstream, type CustomHandler, type EchoedRequest, type EchoUpstream } from '../helpers/echo-upstream.js';
import { echoBackend, errorCode, open, send, sendRaw, startProxyFixture, statusOf, type ProxyFixture } from './support.js';

let held: ServerResponse | null = null;
const upstream: CustomHandler = (request, response) => {
  const url = request.url ?? '';
  if (url.startsWith('/backend/port')) response.end(String(request.socket.remotePort));
  else if (url.startsWith('/backend/stream')) {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('first;');
    held = response;
  } else if (url.startsWith('/backend/headers')) {
    response.writeHead(201, 'Made Here', ['Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'X-Custom', 'v', 'Connection', 'X-Hop', 'X-Hop', 'secret', 'Server', 'Apache/2.4.41 (Ubuntu)']);
    response.end('made');
  } else if (url.startsWith('/backend/coded')) {
    // A body gzipped and then chunked, as the Transfer-Encoding says: written raw, since Node's server would not frame it so.
    const coded = gzipSync('coded body');
    const chunked = `${coded.length.toString(16)}\r\n${coded.toString('latin1')}\r\n0\r\n\r\n`;
    const framing = new URL(url, 'http://x').searchParams.get('as');
    const [encoding, body] =
      framing === 'gzip' ? ['Transfer-Encoding: gzip', coded.toString('latin1')] : framing === 'split' ? ['Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked', chunked] : ['Transfer-Encoding: gzip, chunked', chunked];
    response.socket!.end(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n${encoding}\r\nConnection: close\r\n\r\n${body}`, 'latin1');
  } else if (url.startsWith('/backend/redirect')) {
    response.writeHead(302, { location: new URL(url, 'http://x').searchParams.get('to')! });
    response.end();
  } else return false;
  return true;
};

let fx: ProxyFixture;
const headers = () => ({ 'X-Api-Key': fx.apiKey });
beforeAll(async () => {
  fx = await startProxyFixture({ upstream });
  await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/echo/', backend_prefix: '/backend/' }] }));
  await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/backend/v1/', backend_prefix: '/backend/' }] }));
});
afterAll(() => fx.close());

describe('methods and bodies', () => {
  it('forwards every method with its body', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'SEARCH']) {
      const body = ['GET', 'OPTIONS'].includes(method) ? undefined : `body of ${method}`;
      const reply = await send(fx.gw.url, '/echo/m', { method, headers: headers(), body });
      expect(reply.status, method).toBe(200);
      expect(reply.echoed.method).toBe(method);
      expect(reply.echoed.body).toBe(body ?? '');
    }
    const head = await send(fx.gw.url, '/echo/m', { method: 'HEAD', headers: headers() });
    expect(head.status).toBe(200);
    expect(fx.echo.requests.at(-1)!.method).toBe('HEAD');
  });

  it('answers TRACE 405 itself, in the client\'s format, as nginx does in front of API Umbrella: it would echo cookies and keys back', async () => {
    const before = fx.echo.requests.length;
    for (const path of ['/echo/m', '/echo/m.xml', '/nowhere']) {
      const reply = await send(fx.gw.url, path, { method: 'TRACE', headers: { ...headers(), cookie: 'session=secret' } });
      expect(reply.status, path).toBe(405);
      expect(reply.text).not.toContain('secret');
    }
    expect(JSON.parse((await send(fx.gw.url, '/echo/m', { method: 'TRACE', headers: headers() })).text)).toEqual({
      error: { code: 'METHOD_NOT_ALLOWED', message: 'The request method is not allowed.' },
    });
    expect(fx.echo.requests.length).toBe(before);
  });

  it('forwards a chunked request body', async () => {
    async function* chunks() {
      yield Buffer.from('one,');
      yield Buffer.from('two');
    }
    const reply = await send(fx.gw.url, '/echo/chunked', { method: 'POST', headers: headers(), body: chunks() });
    // undici frames it chunked, or with a Content-Length when the whole body had already arrived.
    expect(reply.echoed.body).toBe('one,two');
  });

  it('answers Expect: 100-continue and then forwards the body', async () => {
    const echoed = await new Promise<EchoedRequest>((resolve, reject) => {
      const request = httpRequest(`${fx.gw.url}/echo/expect`, {
        method: 'POST',
        headers: { ...headers(), expect: '100-continue', 'content-length': '5' },
      });
      request.on('continue', () => request.end('hello'));
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(JSON.parse(text) as EchoedRequest));
      });
      request.on('error', reject);
    });
    expect(echoed.body).toBe('hello');
    expect(echoed.headers.expect).toBeUndefined();
  });

  it('sends 100 Continue only once it lets the request through: a refused upload gets its refusal and is never asked for', async () => {
    const refused = await sendRaw(fx.gw.url, `POST /echo/expect HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 5\r\nConnection: close\r\n\r\n`);
    expect(statusOf(refused)).toBe(403);
    expect(refused).not.toContain('100 Continue');
    // The gateway's own API reads what it is sent: asked at once.
    const own = await sendRaw(fx.gw.url, `POST /api-umbrella/v1/apis HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(own).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 /);
  });

  it('proxies a request with an expectation other than 100-continue, as nginx, without its Expect', async () => {
    const answer = await sendRaw(fx.gw.url, `GET /echo/odd-expectation HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${fx.apiKey}\r\nExpect: something-else\r\nConnection: close\r\n\r\n`);
    expect(statusOf(answer)).toBe(200);
    expect(answer).toContain('"path":"/backend/odd-expectation"');
    expect(answer).not.toContain('something-else');
  });

  it('streams a 200 MB upload with bounded memory', async () => {
    const size = 200 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 97);
    async function* body() {
      for (let sent = 0; sent < size; sent += chunk.length) yield chunk;
    }
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    try {
      const reply = await send(fx.gw.url, '/echo/upload', {
        method: 'POST',
        headers: { ...headers(), 'content-type': 'application/octet-stream', 'content-length': String(size) },
        body: body(),
      });
      expect(reply.echoed.bodyLength).toBe(size);
    } finally {
      clearInterval(sampler);
    }
    // Buffering the body anywhere would take at least its 200 MB; streaming leaves only garbage not yet collected.
    expect(peak - before).toBeLessThan(128 * 1024 * 1024);
  }, 60_000);

  it('streams the response: the client reads the first chunk before the upstream has finished', async () => {
    held = null;
    const response = await open(fx.gw.url, '/echo/stream', { headers: headers() });
    const chunks = response.body[Symbol.asyncIterator]();
    expect(String((await chunks.next()).value)).toBe('first;');
    expect(held).not.toBeNull();
    held!.end('last');
    let rest = '';
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) rest += String(next.value);
    expect(rest).toBe('last');
  });
});

describe('responses', () => {
  it('answers 502 to a body the upstream coded before chunking it, as nginx does in front of API Umbrella, rather than pass it on still coded but no longer saying so', async () => {
    // As one header, as gzip alone (read to the end of the connection), and as two header lines.
    for (const framing of ['list', 'gzip', 'split']) {
      const reply = await send(fx.gw.url, `/echo/coded?as=${framing}`, { headers: headers() });
      expect(reply.status, framing).toBe(502);
      expect(errorCode(reply)).toBe('BAD_GATEWAY');
    }
  });

  it("pass status, reason and headers through, minus hop-by-hop ones and the upstream's Server", async () => {
    const response = await new Promise<{ status?: number; message?: string; raw: string[]; body: string }>((resolve, reject) => {
      httpRequest(`${fx.gw.url}/echo/headers`, { headers: headers() }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode, message: res.statusMessage, raw: res.rawHeaders, body }));
      })
        .on('error', reject)
        .end();
    });
    expect([response.status, response.message, response.body]).toEqual([201, 'Made Here', 'made']);
    const pairs = response.raw.flatMap((value, index) => (index % 2 === 0 ? [`${value.toLowerCase()}: ${response.raw[index + 1]}`] : []));
    expect(pairs).toEqual(expect.arrayContaining(['set-cookie: a=1', 'set-cookie: b=2', 'x-custom: v']));
    expect(pairs.some((pair) => pair.startsWith('x-hop'))).toBe(false);
    // As nginx hides it in front of API Umbrella: a backend's software and version are not told to every client.
    expect(pairs.some((pair) => pair.startsWith('server:'))).toBe(false);
  });

  it('rewrite a Location on the backend host and prefix to the public host and prefix', async () => {
    const location = async (to: string, host = 'public.example') =>
      (await send(fx.gw.url, `/echo/redirect?to=${encodeURIComponent(to)}`, { headers: { ...headers(), host } })).headers.location;
    expect(await location('http://backend.example/backend/next?x=1')).toBe('http://public.example/echo/next?x=1');
    expect(await location(`http://127.0.0.1:${fx.echo.port}/backend/next`)).toBe('http://public.example/echo/next');
    expect(await location('/backend/relative')).toBe('/echo/relative');
    expect(await location('http://elsewhere.example/backend/next')).toBe('http://elsewhere.example/backend/next');
  });

  it("rewrite a Location on the client's own host with a backend path, and the backend's hosts on any port, as API Umbrella compares host names", async () => {
    const location = async (to: string) =>
      (await send(fx.gw.url, `/echo/redirect?to=${encodeURIComponent(to)}`, { headers: { ...headers(), host: 'public.example' } })).headers.location;
    // A backend trusting X-Forwarded-Host builds its redirect on the public host with its own path.
    expect(await location('http://public.example/backend/next')).toBe('http://public.example/echo/next');
    expect(await location('http://PUBLIC.example:8080/backend/next')).toBe('http://public.example/echo/next');
    expect(await location('http://backend.example:8080/backend/next')).toBe('http://public.example/echo/next');
    expect(await location('http://127.0.0.1/backend/next')).toBe('http://public.example/echo/next');
  });

  it('rewrite the backend host in a Location even outside the backend prefix, keeping that path', async () => {
    const location = async (to: string) =>
      (await send(fx.gw.url, `/echo/redirect?to=${encodeURIComponent(to)}`, { headers: { ...headers(), host: 'public.example' } })).headers.location;
    expect(await location('http://backend.example/other/next?x=1')).toBe('http://public.example/other/next?x=1');
    expect(await location('HTTP://Backend.Example:80')).toBe('http://public.example/');
    expect(await location('/other/next')).toBe('/other/next');
    expect(await location('//backend.example/backend/next')).toBe('http://public.example/echo/next');
  });

  it("keep a Location's scheme, so a backend's redirect to https does not loop, with the client's port only on the client's scheme", async () => {
    const location = async (to: string, host: string) =>
      (await send(fx.gw.url, `/echo/redirect?to=${encodeURIComponent(to)}`, { headers: { ...headers(), host } })).headers.location;
    expect(await location('https://backend.example/backend/next?x=1', 'public.example:8080')).toBe('https://public.example/echo/next?x=1');
    expect(await location('https://backend.example:443/backend/next', 'public.example')).toBe('https://public.example/echo/next');
    expect(await location('http://backend.example/backend/next', 'public.example:8080')).toBe('http://public.example:8080/echo/next');
  });

  it('carry a key sent as api_key on in a Location they rewrite, so following the redirect keeps it; a key sent in a header stays out of the URL', async () => {
    const byQuery = async (to: string) =>
      (await send(fx.gw.url, `/echo/redirect?to=${encodeURIComponent(to)}&api_key=${fx.apiKey}`, { headers: { host: 'public.example' } })).headers.location;
    expect(await byQuery('/backend/next?some=param#part')).toBe(`/echo/next?some=param&api_key=${fx.apiKey}#part`);
    expect(await byQuery('http://backend.example/backend/next')).toBe(`http://public.example/echo/next?api_key=${fx.apiKey}`);
    // Not rewritten, not given the key; one that names a key already keeps its own.
    expect(await byQuery('http://elsewhere.example/backend/next')).toBe('http://elsewhere.example/backend/next');
    expect(await byQuery('/backend/next?api_key=other')).toBe('/echo/next?api_key=other');
    const followed = await send(fx.gw.url, (await byQuery('/backend/hello')) as string, { headers: { host: 'public.example' } });
    expect(followed.status).toBe(200);
    const byHeader = await send(fx.gw.url, `/echo/redirect?to=${encodeURIComponent('/backend/next')}`, { headers: { ...headers(), host: 'public.example' } });
    expect(byHeader.headers.location).toBe('/echo/next');
  });

  it('leave a Location already under a frontend_prefix that contains the backend_prefix', async () => {
    const location = async (to: string) =>
      (await send(fx.gw.url, `/backend/v1/redirect?to=${encodeURIComponent(to)}`, { headers: { ...headers(), host: 'public.example' } })).headers.location;
    expect(await location('/backend/v1/next')).toBe('/backend/v1/next');
    expect(await location('http://backend.example/backend/v1/next')).toBe('http://public.example/backend/v1/next');
    expect(await location('/backend/next')).toBe('/backend/v1/next');
  });

  it("carry a key sent as api_key on in a Location that is already public, as in one they rewrite", async () => {
    const byQuery = async (to: string) =>
      (await send(fx.gw.url, `/backend/v1/redirect?to=${encodeURIComponent(to)}&api_key=${fx.apiKey}`, { headers: { host: 'public.example' } })).headers.location;
    expect(await byQuery('/backend/v1/next')).toBe(`/backend/v1/next?api_key=${fx.apiKey}`);
    expect(await byQuery('http://backend.example/backend/v1/next')).toBe(`http://public.example/backend/v1/next?api_key=${fx.apiKey}`);
    // Outside the backend prefix on no host of the backend's: not the backend's to rewrite, nor to give a key.
    expect(await byQuery('/other/next')).toBe('/other/next');
  });
});

describe('upstream connections', () => {
  it('reuses keep-alive connections to the upstream', async () => {
    const ports = new Set<string>();
    for (let index = 0; index < 5; index++) ports.add((await send(fx.gw.url, '/echo/port', { headers: headers() })).text);
    expect(ports.size).toBe(1);
  });
});

describe('balancing over servers', () => {
  const holds: ServerResponse[] = [];
  let servers: EchoUpstream[];
  beforeAll(async () => {
    servers = await Promise.all(
      ['A', 'B'].map((name) =>
        startEchoUpstream((request, response) => {
          if (request.url?.startsWith('/who/hold')) holds.push(response);
          else response.end(name);
          return true;
        }),
      ),
    );
  });
  afterAll(async () => {
    for (const response of holds) response.end();
    await Promise.all(servers.map((server) => server.close()));
  });

  const publish = (prefix: string, algorithm: string) =>
    fx.gw.publishBackend(
      echoBackend(fx.echo, {
        balance_algorithm: algorithm,
        servers: servers.map((server) => ({ host: '127.0.0.1', port: server.port })),
        url_matches: [{ frontend_prefix: prefix, backend_prefix: '/who/' }],
      }),
    );
  const who = async (path: string) => (await send(fx.gw.url, path, { headers: headers() })).text;

  it('round_robin alternates', async () => {
    await publish('/rr/', 'round_robin');
    const answers = [await who('/rr/x'), await who('/rr/x'), await who('/rr/x'), await who('/rr/x')];
    expect(answers[0]).not.toBe(answers[1]);
    expect(answers[2]).toBe(answers[0]);
    expect(answers[3]).toBe(answers[1]);
  });

  it('ip_hash keeps a client on one server', async () => {
    await publish('/ip/', 'ip_hash');
    expect(new Set([await who('/ip/x'), await who('/ip/x'), await who('/ip/x')]).size).toBe(1);
  });

  it('least_conn avoids the server with a request in flight', async () => {
    await publish('/lc/', 'least_conn');
    const pending = open(fx.gw.url, '/lc/hold', { headers: headers() });
    while (holds.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const idle = holds[0]!.socket!.localPort === servers[0]!.port ? 'B' : 'A';
    expect([await who('/lc/x'), await who('/lc/x')]).toEqual([idle, idle]);
    holds[0]!.end('done');
    await (await pending).body.text();
  });
});
