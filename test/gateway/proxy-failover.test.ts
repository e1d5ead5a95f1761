// A backend with several servers, one of them down: requests that can be
// sent again go on to the next server, and a server that could not be
// reached is passed over for a while, as nginx's upstreams do in API Umbrella.
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, errorCode, freePort, send, startProxyFixture, type ProxyFixture } from './support.js';

let fx: ProxyFixture;
let resetter: Server;
let resets = 0;

beforeAll(async () => {
  fx = await startProxyFixture();
  // Takes each connection and closes it at once: the request was maybe sent, never answered.
  resetter = createNetServer((socket) => {
    resets++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => resetter.listen(0, '127.0.0.1', resolve));
  const servers = (...ports: number[]) => ports.map((port) => ({ host: '127.0.0.1', port }));
  const backend = (prefix: string, ports: number[]) =>
    fx.gw.publishBackend(echoBackend(fx.echo, { balance_algorithm: 'round_robin', servers: servers(...ports), url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }] }));
  await backend('/one-down/', [fx.echo.port, await freePort()]);
  await backend('/post/', [fx.echo.port, await freePort()]);
  await backend('/all-down/', [await freePort(), await freePort()]);
  await backend('/reset/', [fx.echo.port, (resetter.address() as AddressInfo).port]);
});
afterAll(async () => {
  resetter.close();
  await fx.close();
});

const headers = () => ({ 'X-Api-Key': fx.apiKey });

describe('failover between servers', () => {
  it('sends every GET to the server that is up', async () => {
    for (let index = 0; index < 6; index++) {
      const reply = await send(fx.gw.url, `/one-down/x${index}`, { headers: headers() });
      expect(reply.status, `request ${index}`).toBe(200);
      expect(reply.echoed.path).toBe(`/x${index}`);
    }
  });

  it('does not send a request with a body twice, and passes over the server that could not be reached', async () => {
    const post = (body: string) => send(fx.gw.url, '/post/items', { method: 'POST', headers: { ...headers(), 'content-type': 'text/plain' }, body });
    // Round robin's first choice is the second server, the one that is down.
    const first = await post('first');
    expect(first.status).toBe(502);
    expect(errorCode(first)).toBe('BAD_GATEWAY');
    // Round robin would choose the server that is down for every other request; it is passed over instead.
    for (const body of ['second', 'third', 'fourth']) {
      const reply = await post(body);
      expect(reply.status, body).toBe(200);
      expect(reply.echoed.body).toBe(body);
    }
  });

  it('answers 502 once every server has been tried', async () => {
    const reply = await send(fx.gw.url, '/all-down/x', { headers: headers() });
    expect(reply.status).toBe(502);
    expect(errorCode(reply)).toBe('BAD_GATEWAY');
  });

  it('sends a GET on when a server closes the connection unanswered, without passing that server over', async () => {
    for (let index = 0; index < 3; index++) expect((await send(fx.gw.url, `/reset/x${index}`, { headers: headers() })).status).toBe(200);
    // Round robin chose the closing server for the first and the third request: it was not set aside.
    expect(resets).toBe(2);
  });
});
