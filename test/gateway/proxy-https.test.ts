// The HTTPS listener (listen.https_port) serves the same app as the plain
// one, with the request's protocol https: for the forwarded headers,
// require_https, the admin's Secure session cookie and WebSocket upgrades.
import { once } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { httpsConfig, TEST_CA } from '../helpers/tls.js';
import { echoBackend, errorCode, freePort, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
let httpsUrl: string;
let sockets: WebSocketServer;
beforeAll(async () => {
  // Above Parasol's default (32 KB), so that the test can tell that the HTTPS listener takes the setting.
  fx = await startProxyFixture({
    // A fixed HTTPS port (not 0), as a deployment has, for redirects to name.
    config: httpsConfig({ listen: { host: '127.0.0.1', port: 0, https_port: await freePort() }, proxy: { max_header_size: 65_536 } }),
    // /redirect?to=URL answers 302 to URL.
    upstream: (request, response) => {
      if (!request.url!.includes('/redirect?')) return false;
      response.writeHead(302, { location: new URL(request.url!, 'http://x').searchParams.get('to')! }).end();
      return true;
    },
  });
  httpsUrl = fx.gw.httpsUrl!;
  await fx.gw.publishBackend(echoBackend(fx.echo));
  await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/secure/', backend_prefix: '/' }], settings: { require_https: true } }));
  // A WebSocket upstream whose first message is the handshake's headers, then an echo.
  sockets = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(sockets, 'listening');
  sockets.on('connection', (socket, request) => {
    socket.send(JSON.stringify(request.headers));
    socket.on('message', (data, binary) => socket.send(data, { binary }));
  });
  const wsPort = (sockets.address() as AddressInfo).port;
  await fx.gw.publishBackend(echoBackend(fx.echo, { servers: [{ host: '127.0.0.1', port: wsPort }], url_matches: [{ frontend_prefix: '/live/', backend_prefix: '/' }] }));
});
afterAll(async () => {
  for (const client of sockets.clients) client.terminate();
  sockets.close();
  await fx.close();
});

const portOf = (url: string): string => new URL(url).port;

describe('the HTTPS listener', () => {
  it("is where a backend's redirect to https sends a client that came over plain HTTP", async () => {
    const to = encodeURIComponent('https://backend.example/backend/next');
    const reply = await send(fx.gw.url, `/echo/redirect?to=${to}`, { headers: { 'X-Api-Key': fx.apiKey, host: 'public.example:8080' } });
    expect(reply.headers.location).toBe(`https://public.example:${portOf(httpsUrl)}/echo/next`);
  });

  it('is a second listener of its own, on another port than plain HTTP', () => {
    expect(httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(portOf(httpsUrl)).not.toBe(portOf(fx.gw.url));
  });

  it('proxies a request to the upstream with X-Forwarded-Proto https and the HTTPS port', async () => {
    const reply = await send(httpsUrl, `/echo/weather?api_key=${fx.apiKey}`);
    expect(reply.status).toBe(200);
    expect(reply.echoed.path).toBe('/backend/weather');
    expect(reply.echoed.headers['x-forwarded-proto']).toBe('https');
    expect(reply.echoed.headers['x-forwarded-port']).toBe(portOf(httpsUrl));
    expect(reply.echoed.headers['x-api-user-id']).toBe(fx.userId);
    // The plain listener still says http, with its own port.
    const plain = await send(fx.gw.url, `/echo/weather?api_key=${fx.apiKey}`);
    expect(plain.echoed.headers['x-forwarded-proto']).toBe('http');
    expect(plain.echoed.headers['x-forwarded-port']).toBe(portOf(fx.gw.url));
  });

  it('lets require_https pass on HTTPS and refuses it on plain HTTP', async () => {
    const plain = await send(fx.gw.url, `/secure/x?api_key=${fx.apiKey}`);
    expect(plain.status).toBe(400);
    expect(errorCode(plain)).toBe('HTTPS_REQUIRED');
    // The URL it offers is this HTTPS listener's, port included, where the client can go.
    expect(JSON.parse(plain.text).error.message).toBe(`Requests must be made over HTTPS. Try accessing the API at: https://127.0.0.1:${portOf(httpsUrl)}/secure/x?api_key=${fx.apiKey}`);
    const secure = await send(httpsUrl, `/secure/x?api_key=${fx.apiKey}`);
    expect(secure.status).toBe(200);
    expect(secure.echoed.path).toBe('/x');
  });

  it('serves the gateway\'s own pages too: signing in to the admin sets a Secure session cookie', async () => {
    await fx.gw.context.admins.create({ email: 'tls-ops@example.com', password: 'correct horse battery staple', superuser: true });
    const signIn = async (baseUrl: string): Promise<string> => {
      const form = await send(baseUrl, '/admin/login');
      const cookies = cookiePairs(form.headers['set-cookie']);
      const token = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
      const body = new URLSearchParams({ _csrf: token, email: 'tls-ops@example.com', password: 'correct horse battery staple' }).toString();
      const reply = await send(baseUrl, '/admin/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies }, body });
      expect(reply.status).toBe(303);
      return setCookies(reply.headers['set-cookie']).find((cookie) => cookie.startsWith('parasol_admin_session='))!;
    };
    expect(await signIn(httpsUrl)).toMatch(/; Secure/);
    expect(await signIn(fx.gw.url)).not.toMatch(/; Secure/);
  });

  it('joins a WebSocket over TLS (wss) to the upstream', async () => {
    const socket = new WebSocket(`${httpsUrl.replace('https:', 'wss:')}/live/chat?api_key=${fx.apiKey}`, { ca: TEST_CA });
    const [first] = (await once(socket, 'message')) as [Buffer];
    const seen = JSON.parse(first.toString()) as IncomingHttpHeaders;
    expect(seen['x-forwarded-proto']).toBe('https');
    expect(seen['x-forwarded-port']).toBe(portOf(httpsUrl));
    expect(seen['x-api-user-id']).toBe(fx.userId);
    socket.send('over TLS');
    const [echoed] = (await once(socket, 'message')) as [Buffer];
    expect(echoed.toString()).toBe('over TLS');
    socket.close();
    await once(socket, 'close');
  });

  it('refuses a WebSocket without a key over TLS as on plain HTTP', async () => {
    const socket = new WebSocket(`${httpsUrl.replace('https:', 'wss:')}/live/chat`, { ca: TEST_CA });
    socket.on('error', () => undefined);
    const [, response] = (await once(socket, 'unexpected-response')) as [unknown, { statusCode: number }];
    expect(response.statusCode).toBe(403);
    socket.terminate();
  });

  it('applies proxy.max_header_size: headers up to it pass, 431 above it', async () => {
    expect((await send(httpsUrl, '/api-umbrella/v1/health', { headers: { 'x-big': 'a'.repeat(48_000) } })).status).toBe(200);
    expect((await send(httpsUrl, '/api-umbrella/v1/health', { headers: { 'x-big': 'a'.repeat(72_000) } })).status).toBe(431);
  });

  it('speaks HTTP/1.1 only: ALPN picks http/1.1 over h2', async () => {
    const { hostname, port } = new URL(httpsUrl);
    const socket = tlsConnect({ host: hostname, port: Number(port), ca: TEST_CA, ALPNProtocols: ['h2', 'http/1.1'] });
    await once(socket, 'secureConnect');
    expect(socket.alpnProtocol).toBe('http/1.1');
    socket.destroy();
  });
});

function setCookies(header: string | string[] | undefined): string[] {
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}

/** "name=value; name2=value2" for a Cookie header, from Set-Cookie headers. */
function cookiePairs(header: string | string[] | undefined): string {
  return setCookies(header)
    .map((cookie) => cookie.split(';')[0]!)
    .join('; ');
}
