// A client that leaves while its request waits for a busy upstream
// connection: the request is never sent, and the connection is not held, nor
// closed: the next request has it.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { echoBackend, open, send, startProxyFixture, type ProxyFixture } from './support.js';

let held: ServerResponse | null = null;
let heldArrived: () => void;
const arrived = new Promise<void>((resolve) => (heldArrived = resolve));
let queuedSeen = 0;
/** The gateway's end of the upstream connection each request came on. */
const connections: Record<string, number | undefined> = {};
const upstream: CustomHandler = (request, response) => {
  if (request.url?.startsWith('/backend/after')) connections.after = request.socket.remotePort;
  if (request.url?.startsWith('/backend/hold')) {
    connections.hold = request.socket.remotePort;
    held = response;
    heldArrived();
    return true;
  }
  if (request.url?.startsWith('/backend/queued')) queuedSeen++;
  return false;
};

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ upstream, config: { proxy: { connections_per_server: 1 } } });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

it('does not send a request whose client left while it waited for a connection, and keeps the connection it would have had', async () => {
  const headers = { 'X-Api-Key': fx.apiKey };
  const holding = send(fx.gw.url, '/echo/hold', { headers });
  await arrived;
  const leaving = new AbortController();
  const queued = open(fx.gw.url, '/echo/queued', { headers, signal: leaving.signal }).catch(() => null);
  // No event tells that the gateway has queued it behind the held request; its checks take well under this.
  await new Promise((resolve) => setTimeout(resolve, 200));
  leaving.abort();
  await queued;
  held!.end('released');
  expect((await holding).status).toBe(200);
  // The one connection is free again: the next request goes through, and the left one never went.
  expect((await send(fx.gw.url, '/echo/after', { headers })).status).toBe(200);
  expect(queuedSeen).toBe(0);
  expect(connections.after).toBe(connections.hold);
});
