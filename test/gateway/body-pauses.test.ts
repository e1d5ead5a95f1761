// BodyPauseWatch on a real HTTP server: requests are let go as soon as they
// are over, not held to the next sweep.
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyPauseWatch } from '../../src/gateway/body-pauses.js';

let server: Server;
let port: number;
const stalled: IncomingMessage[] = [];
// A long timeout: its sweep (once a second) does not run within these tests' requests.
const watch = new BodyPauseWatch(60_000, (request) => stalled.push(request));

beforeAll(async () => {
  server = createServer((request, response) => {
    watch.watch(request, response);
    request.resume();
    request.on('end', () => response.end('ok'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  watch.stop();
  server.close();
});

function post(body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ port, method: 'POST', path: '/', agent: false }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('BodyPauseWatch', () => {
  it('forgets each request when it closes, before any sweep', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, index) => post(`body ${index}`)));
    await expect.poll(() => watch.watching, { timeout: 500 }).toBe(0);
    expect(stalled).toEqual([]);
  });
});
