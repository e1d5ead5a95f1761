// A burst of slow requests to one upstream server: by default each gets a
// connection of its own, as nginx in front of API Umbrella opens them
// (its test_concurrent_backend_connections_can_exceed_keepalive_count),
// rather than waiting behind a small pool.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

/** More than the 128 the pool allowed before. */
const BURST = 200;
const held: ServerResponse[] = [];
let allArrived: () => void;
const arrived = new Promise<void>((resolve) => (allArrived = resolve));
// Each request is held until all of them are in: the upstream must see them at once.
const upstream: CustomHandler = (request, response) => {
  if (!request.url?.startsWith('/backend/slow')) return false;
  held.push(response);
  if (held.length === BURST) allArrived();
  return true;
};

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ upstream });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

it(`has ${BURST} requests at one upstream server in flight at once`, async () => {
  const replies = Array.from({ length: BURST }, (_, index) => send(fx.gw.url, `/echo/slow/${index}`, { headers: { 'X-Api-Key': fx.apiKey } }));
  await arrived;
  for (const response of held) response.end('done');
  expect((await Promise.all(replies)).every((reply) => reply.status === 200)).toBe(true);
});
