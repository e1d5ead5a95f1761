// WebSockets through the gateway: the handshake is checked like any request,
// an allowed one is joined to a real WebSocket upstream byte for byte.
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { connect as connectTcp, createServer as createTcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { startTestGateway } from '../helpers/gateway.js';
import { connect, listenOnLoopback, startWebSocketUpstream, type WebSocketUpstream } from '../helpers/websocket-upstream.js';
import { echoBackend, sendRaw, startProxyFixture, statusOf, type ProxyFixture } from './support.js';

/** An upstream that takes connections and reads requests but never answers them; `requested` is the connection the first request came on. */
async function startSilentUpstream(): Promise<{ port: number; requested: Promise<Socket>; close(): Promise<void> }> {
  const server = createTcpServer();
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => sockets.add(socket));
  const requested = new Promise<Socket>((resolve) => server.on('connection', (socket) => socket.once('data', () => resolve(socket))));
  // The gateway's pool may hold an idle connection here until its keep-alive timeout.
  const listening = await listenOnLoopback(server, () => {
    for (const socket of sockets) socket.destroy();
  });
  return { ...listening, requested };
}

/** The analytics entry whose `column` holds `value`, once the gateway has logged it (within 2 s); undefined if it never does. */
async function loggedEntry(column: 'request_id' | 'request_path', value: string): Promise<AnalyticsEntry | undefined> {
  let entry: AnalyticsEntry | undefined;
  for (const deadline = Date.now() + 2000; entry === undefined && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 5))) {
    fx.gw.context.analytics.flush();
    entry = fx.gw.context.db.prepare(`SELECT * FROM analytics_logs WHERE ${column} = ?`).get(value) as AnalyticsEntry | undefined;
  }
  return entry;
}

/** Linux's established TCP sockets: ports, and whether the keepalive timer runs (timer 2 in /proc/net/tcp). */
async function tcpSockets(): Promise<{ localPort: number; remotePort: number; keepalive: boolean }[]> {
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readFile(path, 'utf8').catch(() => '')));
  return tables.flatMap((table) =>
    table
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === '01')
      .map(([, local, remote, , , timer]) => ({ localPort: parseInt(local!.split(':')[1]!, 16), remotePort: parseInt(remote!.split(':')[1]!, 16), keepalive: timer!.startsWith('02:') })),
  );
}

async function keepaliveTimerOn(localPort: number, remotePort: number): Promise<boolean | undefined> {
  return (await tcpSockets()).find((entry) => entry.localPort === localPort && entry.remotePort === remotePort)?.keepalive;
}

function handshake(path: string, extra = ''): string {
  return `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${extra}\r\n`;
}

let fx: ProxyFixture;
let upstream: WebSocketUpstream;
let ws: string;
beforeAll(async () => {
  upstream = await startWebSocketUpstream();
  fx = await startProxyFixture();
  await fx.gw.publishBackend(echoBackend(fx.echo, { servers: [{ host: '127.0.0.1', port: upstream.port }], url_matches: [{ frontend_prefix: '/live/', backend_prefix: '/socket/' }] }));
  await fx.gw.publishBackend(echoBackend(fx.echo, { url_matches: [{ frontend_prefix: '/plain/', backend_prefix: '/' }] }));
  await fx.gw.publishBackend(echoBackend(fx.echo, { servers: [{ host: '127.0.0.1', port: 1 }], url_matches: [{ frontend_prefix: '/dead/', backend_prefix: '/' }] }));
  ws = fx.gw.url.replace('http:', 'ws:');
});
afterAll(async () => {
  await fx.close();
  await upstream.close();
});

describe('WebSocket upgrades', () => {
  it('joins an allowed client to the upstream: messages both ways, the key and forged identity not passed on', async () => {
    const { socket, seen, upgradeHeaders } = await connect(`${ws}/live/chat?room=1&api_key=${fx.apiKey}`, { 'X-Api-User-Id': 'forged' });
    expect(seen.url).toBe('/socket/chat?room=1');
    expect(seen.headers['x-api-user-id']).toBe(fx.userId);
    expect(seen.headers['x-api-umbrella-request-id']).toBe(upgradeHeaders['x-api-umbrella-request-id']);
    expect(seen.headers.host).toBe('backend.example');
    socket.send('hello through the gateway');
    const [echoed] = (await once(socket, 'message')) as [Buffer];
    expect(echoed.toString()).toBe('hello through the gateway');
    socket.send(Buffer.from([0, 1, 2, 255]));
    const [binary] = (await once(socket, 'message')) as [Buffer];
    expect([...binary]).toEqual([0, 1, 2, 255]);
    socket.close();
    await once(socket, 'close');
  });

  it('takes the key from the X-Api-Key header and drops it', async () => {
    const { socket, seen } = await connect(`${ws}/live/`, { 'X-Api-Key': fx.apiKey });
    expect(seen.headers['x-api-key']).toBeUndefined();
    expect(seen.headers['x-api-user-id']).toBe(fx.userId);
    socket.terminate();
  });

  it('refuses a handshake without a key with API_KEY_MISSING, and the upstream never sees it', async () => {
    const before = upstream.handshakes.length;
    const answer = await sendRaw(fx.gw.url, handshake('/live/chat'));
    expect(statusOf(answer)).toBe(403);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('"code":"API_KEY_MISSING"');
    expect(upstream.handshakes.length).toBe(before);
  });

  it('refuses an invalid key and a path no backend takes in the usual formats', async () => {
    expect(await sendRaw(fx.gw.url, handshake('/live/x?api_key=not-a-real-key-at-all'))).toContain('"code":"API_KEY_INVALID"');
    const notFound = await sendRaw(fx.gw.url, handshake(`/nowhere.xml?api_key=${fx.apiKey}`));
    expect(statusOf(notFound)).toBe(404);
    expect(notFound).toContain('<code>NOT_FOUND</code>');
  });

  it("passes on an upstream's answer when it does not switch protocols, then closes", async () => {
    const answer = await sendRaw(fx.gw.url, handshake(`/plain/page?api_key=${fx.apiKey}`));
    expect(statusOf(answer)).toBe(200);
    expect(answer).toContain('"path":"/page"');
  });

  it('proxies an upgrade request that carries a body as an ordinary request (Node parses it as one)', async () => {
    const answer = await sendRaw(
      fx.gw.url,
      `POST /plain/form?api_key=${fx.apiKey} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings, close\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\nContent-Length: 5\r\n\r\nhello`,
    );
    expect(statusOf(answer)).toBe(200);
    expect(answer).toContain('"body":"hello"');
    expect(answer).not.toContain('"upgrade"');
  });

  it('switches to no protocol but WebSocket: h2c or another is proxied as an ordinary request, without its Upgrade or HTTP2-Settings', async () => {
    for (const upgrade of ['Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c', 'Connection: Upgrade\r\nUpgrade: h2c', 'Connection: Upgrade\r\nUpgrade: foo/1']) {
      const before = fx.echo.requests.length;
      const answer = await sendRaw(fx.gw.url, `GET /plain/h2?api_key=${fx.apiKey} HTTP/1.1\r\nHost: localhost\r\n${upgrade}\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n`);
      expect(statusOf(answer), upgrade).toBe(200);
      const [echoed] = fx.echo.requests.slice(before);
      expect(echoed?.url, upgrade).toBe('/h2');
      expect(Object.keys(echoed!.headers).filter((name) => ['upgrade', 'http2-settings'].includes(name)), upgrade).toEqual([]);
    }
  });

  it('reads such a body past the first packet, and refuses a chunked one with 400', async () => {
    const body = 'x'.repeat(300_000);
    const upgradePost = (headers: string, payload: string) =>
      `POST /plain/big?api_key=${fx.apiKey} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n${headers}\r\n${payload}`;
    const answer = await sendRaw(fx.gw.url, upgradePost(`Content-Length: ${body.length}\r\n`, body));
    expect(statusOf(answer)).toBe(200);
    expect(answer).toContain('"bodyLength":300000');
    const chunked = await sendRaw(fx.gw.url, upgradePost('Transfer-Encoding: chunked\r\n', '5\r\nhello\r\n0\r\n\r\n'));
    expect(statusOf(chunked)).toBe(400);
  });

  it('answers 502 BAD_GATEWAY when the upstream is down', async () => {
    const answer = await sendRaw(fx.gw.url, handshake(`/dead/x?api_key=${fx.apiKey}`));
    expect(statusOf(answer)).toBe(502);
    expect(answer).toContain('"code":"BAD_GATEWAY"');
  });

  it('sets TCP keepalive on both connections of a tunnel, so a peer that vanished without closing is found', async () => {
    const { socket } = await connect(`${ws}/live/?api_key=${fx.apiKey}`);
    const clientPort = (socket as unknown as { _socket: Socket })._socket.localPort!;
    const gatewayPort = Number(new URL(fx.gw.url).port);
    // The gateway's side of the client's connection, and its connection to the upstream (Linux's table of TCP sockets).
    expect(await keepaliveTimerOn(gatewayPort, clientPort)).toBe(true);
    const upstreamSide = (await tcpSockets()).find((entry) => entry.remotePort === upstream.port && entry.localPort !== gatewayPort);
    expect(upstreamSide?.keepalive).toBe(true);
    socket.terminate();
  });

  it('logs a connection as one analytics entry with status 101 once it closes', async () => {
    const { socket, upgradeHeaders } = await connect(`${ws}/live/logged?api_key=${fx.apiKey}`);
    const requestId = String(upgradeHeaders['x-api-umbrella-request-id']);
    socket.close();
    await once(socket, 'close');
    const entry = await loggedEntry('request_id', requestId);
    expect(entry).toMatchObject({ response_status: 101, request_path: '/live/logged', request_url_query: 'api_key=[REDACTED]', user_id: fx.userId, gatekeeper_denied_code: null });
    expect(entry!.response_size).toBeGreaterThan(0);
  });

  it("counts the tunnel's whole life as upstream time, not gateway overhead, as nginx's upstream_response_time does", async () => {
    const { socket, upgradeHeaders } = await connect(`${ws}/live/timed?api_key=${fx.apiKey}`);
    // Messages through the tunnel, one after another, so that it lives far longer than its handshake.
    for (let message = 0; message < 20; message++) {
      const echoed = once(socket, 'message');
      socket.send(`message ${message}`);
      await echoed;
    }
    socket.close();
    await once(socket, 'close');
    const entry = (await loggedEntry('request_id', String(upgradeHeaders['x-api-umbrella-request-id'])))!;
    expect(entry.upstream_time!).toBeGreaterThan(entry.gateway_overhead);
    expect(entry.upstream_time! + entry.gateway_overhead).toBeCloseTo(entry.response_time, 2);
  });

  it('takes a client that ends its side before the upstream switched as gone: the upstream call is aborted and logged as 499', async () => {
    const silent = await startSilentUpstream();
    try {
      await fx.gw.publishBackend(echoBackend(fx.echo, { servers: [{ host: '127.0.0.1', port: silent.port }], url_matches: [{ frontend_prefix: '/silent/', backend_prefix: '/' }] }));
      const { port } = new URL(fx.gw.url);
      const client = connectTcp(Number(port), '127.0.0.1');
      client.write(handshake(`/silent/wait?api_key=${fx.apiKey}`));
      const upstreamSide = await silent.requested;
      const upstreamClosed = once(upstreamSide, 'close');
      client.end();
      await upstreamClosed;
      expect(await loggedEntry('request_path', '/silent/wait')).toMatchObject({ response_status: 499, user_id: fx.userId });
      client.destroy();
    } finally {
      await silent.close();
    }
  });

  it('closes open connections when the gateway stops, and the stop completes', async () => {
    const gw = await startTestGateway({ default_api_backend_settings: { rate_limits: [] } });
    const { apiKey } = await gw.createUser();
    await gw.publishBackend(echoBackend(fx.echo, { servers: [{ host: '127.0.0.1', port: upstream.port }], url_matches: [{ frontend_prefix: '/live/', backend_prefix: '/' }] }));
    const { socket } = await connect(`${gw.url.replace('http:', 'ws:')}/live/?api_key=${apiKey}`);
    const closed = once(socket, 'close');
    await gw.stop();
    await closed;
    expect(socket.readyState).toBe(WebSocket.CLOSED);
  });
});
