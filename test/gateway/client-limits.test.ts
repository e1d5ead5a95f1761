// global_rate_limits (API Umbrella's router.global_rate_limits, its
// test_nginx_global_rate_limits.rb): per client IP, requests in flight and
// requests a second beyond a burst; 429 OVER_RATE_LIMIT past either.
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { connect as connectWebSocket, startWebSocketUpstream } from '../helpers/websocket-upstream.js';
import { echoBackend, errorCode, send, startProxyFixture, type ProxyFixture, type Reply } from './support.js';

/** Responses the upstream holds until released, and a callback per arrival. */
const held: ServerResponse[] = [];
let arrived: () => void = () => undefined;
const upstream: CustomHandler = (request, response) => {
  if (!request.url!.startsWith('/backend/held')) return false;
  held.push(response);
  arrived();
  return true;
};

let connections: ProxyFixture;
let rate: ProxyFixture;
beforeAll(async () => {
  connections = await startProxyFixture({ upstream, config: { global_rate_limits: { ip_connections: 2 } } });
  rate = await startProxyFixture({ config: { global_rate_limits: { ip_rate: 1, ip_burst: 2 } } });
  for (const fixture of [connections, rate]) await fixture.gw.publishBackend(echoBackend(fixture.echo));
});
afterAll(async () => {
  await connections.close();
  await rate.close();
});

function call(fixture: ProxyFixture, path: string, ip: string): Promise<Reply> {
  return send(fixture.gw.url, path, { headers: { 'X-Api-Key': fixture.apiKey, 'X-Forwarded-For': ip } });
}

describe('global_rate_limits.ip_connections', () => {
  it('refuses a client with that many requests in flight, others not, and takes it again once one ends', async () => {
    const bothArrived = new Promise<void>((resolve) => (arrived = () => held.length === 2 && resolve()));
    const first = [call(connections, '/echo/held/1', '198.51.100.1'), call(connections, '/echo/held/2', '198.51.100.1')];
    await bothArrived;
    const third = await call(connections, '/echo/info', '198.51.100.1');
    expect(third.status).toBe(429);
    expect(errorCode(third)).toBe('OVER_RATE_LIMIT');
    expect((await call(connections, '/echo/info', '198.51.100.2')).status).toBe(200);
    held.splice(0).forEach((response) => response.end('done'));
    expect((await Promise.all(first)).map((reply) => reply.status)).toEqual([200, 200]);
    expect((await call(connections, '/echo/info', '198.51.100.1')).status).toBe(200);
  });

  it('lets go of a pipelined request whose client left before its turn (Node never closes its response)', async () => {
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
    const client = connect(Number(new URL(connections.gw.url).port), '127.0.0.1');
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${connections.apiKey}\r\nX-Forwarded-For: 198.51.100.3\r\n\r\n`;
    client.write(get('/echo/held/first') + get('/echo/info'));
    await firstArrived;
    const closed = once(client, 'close');
    client.destroy();
    await closed;
    held.splice(0).forEach((response) => response.end('done'));
    // Both of the client's slots are free again: two requests in flight at once are let through.
    const bothArrived = new Promise<void>((resolve) => (arrived = () => held.length === 2 && resolve()));
    const again = [call(connections, '/echo/held/a', '198.51.100.3'), call(connections, '/echo/held/b', '198.51.100.3')];
    await Promise.race([bothArrived, ...again.map((reply) => reply.then((answer) => Promise.reject(new Error(`answered ${answer.status} before its turn`))))]);
    held.splice(0).forEach((response) => response.end('done'));
    expect((await Promise.all(again)).map((reply) => reply.status)).toEqual([200, 200]);
  });
});

describe('global_rate_limits on WebSocket handshakes', () => {
  it('counts an open tunnel as one in flight until it closes (nginx limit_conn), and refuses one more with 429', async () => {
    const sockets = await startWebSocketUpstream();
    try {
      await connections.gw.publishBackend(echoBackend(connections.echo, { servers: [{ host: '127.0.0.1', port: sockets.port }], url_matches: [{ frontend_prefix: '/live/', backend_prefix: '/socket/' }] }));
      const url = `${connections.gw.url.replace('http', 'ws')}/live/`;
      const headers = { 'X-Api-Key': connections.apiKey, 'X-Forwarded-For': '198.51.100.5' };
      const open = [await connectWebSocket(url, headers), await connectWebSocket(url, headers)];
      const refused = new WebSocket(url, { headers });
      // Ended before a connection was made: ws reports that as an error.
      refused.on('error', () => undefined);
      const [, response] = (await once(refused, 'unexpected-response')) as [unknown, IncomingMessage];
      expect(response.statusCode).toBe(429);
      refused.terminate();
      const closed = once(open[0]!.socket, 'close');
      open[0]!.socket.close();
      await closed;
      // Its slot is free once the gateway has seen the tunnel close.
      await expect.poll(async () => {
        const again = new WebSocket(url, { headers });
        again.on('error', () => undefined);
        const outcome = await Promise.race([once(again, 'upgrade').then(() => 101), once(again, 'unexpected-response').then(([, res]) => (res as IncomingMessage).statusCode)]);
        again.terminate();
        return outcome;
      }).toBe(101);
      open[1]!.socket.close();
    } finally {
      await sockets.close();
    }
  });
});

describe('global_rate_limits.ip_rate and ip_burst', () => {
  it('lets a client send the burst and one more at once, then refuses it until its rate allows; others are counted apart', async () => {
    const statuses = [];
    for (let index = 0; index < 4; index++) statuses.push((await call(rate, '/echo/info', '198.51.100.7')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await call(rate, '/echo/info', '198.51.100.8')).status).toBe(200);
  });
});
