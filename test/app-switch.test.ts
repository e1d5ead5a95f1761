// The listening servers serve one app at a time, with its listeners and its
// connection timeouts, and take the next app's in one step.
import { Agent, request } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { AppSwitch } from '../src/app-switch.js';
import { openHttpListener, type HttpListener } from '../src/http-listener.js';

let listener: HttpListener | null = null;
const apps: FastifyInstance[] = [];
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
afterEach(async () => {
  agent.destroy();
  await listener?.close();
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function appAnswering(name: string, keepAliveTimeout: number): Promise<FastifyInstance> {
  const app = Fastify({ keepAliveTimeout });
  app.get('/', () => name);
  await app.ready();
  apps.push(app);
  return app;
}

function get(url: string): Promise<{ body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { agent }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ body, reused: sent.reusedSocket }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('AppSwitch', () => {
  it("serves with the app's listeners and timeouts, then with the next app's on the same connection", async () => {
    const first = await appAnswering('first', 72_000);
    first.server.headersTimeout = 12_345;
    first.server.maxRequestsPerSocket = 7;
    first.server.setTimeout(9_000);
    const switcher = new AppSwitch(first);
    listener = await openHttpListener({ host: '127.0.0.1', port: 0, maxHeaderSize: 16_384, serve: (server) => switcher.serveOn(server) });
    const { server } = listener;
    expect([server.keepAliveTimeout, server.headersTimeout, server.maxRequestsPerSocket, server.timeout]).toEqual([72_000, 12_345, 7, 9_000]);
    expect(await get(listener.url)).toEqual({ body: 'first', reused: false });

    expect(switcher.switchTo(await appAnswering('second', 5_000))).toBe(first);
    expect(server.keepAliveTimeout).toBe(5_000);
    expect(await get(listener.url)).toEqual({ body: 'second', reused: true });
    expect(server.listeners('request')).toHaveLength(1);
  });
});
