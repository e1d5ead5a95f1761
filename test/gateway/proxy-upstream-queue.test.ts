// A request that waits for a connection to its upstream server, every one of
// proxy.connections_per_server being busy, waits at most
// proxy.response_timeout_ms: then its client gets 504, and the request is
// never sent, leaving the connection it would have had to the next one.
import type { ServerResponse } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { echoBackend, open, send, startProxyFixture, type ProxyFixture } from './support.js';

const RESPONSE_TIMEOUT_MS = 300;

let held: ServerResponse | null = null;
let heldArrived: () => void;
const arrived = new Promise<void>((resolve) => (heldArrived = resolve));
/** The gateway's end of the upstream connection each request came on. */
const connections: Record<string, number | undefined> = {};
let queuedSeen = 0;
const upstream: CustomHandler = (request, response) => {
  const url = request.url ?? '';
  if (url.startsWith('/backend/queued')) queuedSeen++;
  if (url.startsWith('/backend/hold')) {
    connections.hold = request.socket.remotePort;
    // Headers at once, then the body held: the one connection stays busy with no timeout running out.
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('begun;');
    held = response;
    heldArrived();
    return true;
  }
  if (url.startsWith('/backend/after')) connections.after = request.socket.remotePort;
  return false;
};

const logged: Record<string, unknown>[] = [];
let fx: ProxyFixture;
beforeAll(async () => {
  const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
  fx = await startProxyFixture({ upstream, context: { logger }, config: { proxy: { connections_per_server: 1, response_timeout_ms: RESPONSE_TIMEOUT_MS } } });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

it('answers 504 GATEWAY_TIMEOUT to a request that waited for a connection as long as a response may take, never sends it, and keeps the connection', async () => {
  const headers = { 'X-Api-Key': fx.apiKey };
  const holding = await open(fx.gw.url, '/echo/hold', { headers });
  await arrived;
  const started = performance.now();
  const queued = await send(fx.gw.url, '/echo/queued.xml', { headers });
  const waited = performance.now() - started;
  expect([queued.status, queued.headers['content-type']]).toEqual([504, 'application/xml']);
  expect(queued.text).toContain('<code>GATEWAY_TIMEOUT</code>');
  expect(waited).toBeGreaterThanOrEqual(RESPONSE_TIMEOUT_MS - 5);
  expect(waited).toBeLessThan(RESPONSE_TIMEOUT_MS + 1500);
  expect(logged.filter((line) => line.msg === 'upstream request failed')).toEqual([
    expect.objectContaining({ error: 'UPSTREAM_QUEUE_TIMEOUT', answered: 'GATEWAY_TIMEOUT' }),
  ]);

  held!.end('done');
  expect(await holding.body.text()).toBe('begun;done');
  const after = await send(fx.gw.url, '/echo/after', { headers });
  expect(after.status).toBe(200);
  // The request given up on was dropped when the connection came free, not sent, and the connection was kept for the next.
  expect(queuedSeen).toBe(0);
  expect(connections.after).toBe(connections.hold);
});
