// Where Parasol listens without listen.host: every interface, IPv6 and IPv4,
// as API Umbrella listens on "*" and "[::]" (IPv4 alone where the machine has
// no IPv6: Node's own fallback, which a test here cannot switch IPv6 off for).
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../src/serve.js';
import { testConfig } from './helpers/config.js';

/** The machine has IPv6 loopback (Node listens on IPv4 alone without it). */
const HAS_IPV6 = Object.values(networkInterfaces()).some((addresses) => addresses?.some((address) => address.family === 'IPv6' && address.internal));

let running: RunningServer | null = null;
let occupier: Server | null = null;
afterEach(async () => {
  await running?.stop();
  occupier?.close();
  running = occupier = null;
});

/** The config's listen without a host: only the port. */
const withoutHost = (port = 0) => testConfig({ listen: { port } });

describe('listen.host left unset', () => {
  it('is null in the loaded config', () => {
    expect(withoutHost().listen.host).toBeNull();
  });

  // How a dual-stack socket names IPv4 clients: gateway/proxy-dual-stack.test.ts.
  it.skipIf(!HAS_IPV6)('answers on IPv6 and on IPv4', async () => {
    running = await startServer(withoutHost());
    const { port } = new URL(running.url);
    for (const host of ['127.0.0.1', '[::1]']) {
      const response = await fetch(`http://${host}:${port}/api-umbrella/v1/health`);
      expect(response.status).toBe(200);
    }
  });

  it('names the port, and no host, when the port is taken', async () => {
    occupier = createServer();
    occupier.listen({ host: '0.0.0.0', port: 0 });
    await once(occupier, 'listening');
    const { port } = occupier.address() as { port: number };
    await expect(startServer(withoutHost(port))).rejects.toThrow(`listen.port: ${port} is in use (EADDRINUSE)`);
  });
});
