// proxy.client_send_timeout_ms (nginx's send_timeout in front of API
// Umbrella): a client that takes nothing of its response for that long, while
// there is something to send, loses its connection, and the upstream request
// feeding it ends; a client that reads slowly, in pauses shorter than that,
// gets its whole response.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { echoBackend, startProxyFixture, type ProxyFixture } from './support.js';

const SEND_TIMEOUT_MS = 1000;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
/** More than loopback's socket buffers hold, so that a client's pause blocks the gateway's writes. */
const FINITE_BYTES = 32 * 1024 * 1024;

/** Writes `total` bytes (Infinity: until it closes) as fast as `out` takes them. */
function pump(out: NodeJS.WritableStream & { destroyed: boolean }, total: number): void {
  let sent = 0;
  const more = (): void => {
    while (sent < total && !out.destroyed) {
      sent += CHUNK.length;
      if (!out.write(CHUNK)) return void out.once('drain', more);
    }
    if (sent >= total) out.end();
  };
  more();
}

/** Resolved when the upstream's response to each endless path closes: the gateway ended the request. */
const upstreamClosed = new Map<string, { closed: Promise<void>; close: () => void }>();
function closing(path: string): Promise<void> {
  let close!: () => void;
  const closed = new Promise<void>((resolve) => (close = resolve));
  upstreamClosed.set(path, { closed, close });
  return closed;
}

const upstream: CustomHandler = (request, response) => {
  const url = request.url ?? '';
  if (url === '/backend/endless') {
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    response.on('close', () => upstreamClosed.get(url)!.close());
    pump(response, Infinity);
    return true;
  }
  if (url === '/backend/endless-gzip') {
    // Gzipped, to a client that takes no gzip: the gateway unzips it on the way.
    response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    const gzip = createGzip();
    gzip.pipe(response);
    response.on('close', () => {
      gzip.destroy();
      upstreamClosed.get(url)!.close();
    });
    pump(gzip, Infinity);
    return true;
  }
  if (url.startsWith('/backend/finite')) {
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(FINITE_BYTES) });
    pump(response, FINITE_BYTES);
    return true;
  }
  return false;
};

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ upstream, config: { proxy: { client_send_timeout_ms: SEND_TIMEOUT_MS } } });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

function get(path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${fx.gw.url}${path}`, { headers: { 'X-Api-Key': fx.apiKey }, agent: false }, resolve);
    request.on('error', reject);
    request.end();
  });
}

/** Reads the response in bursts of 4 MB, each followed by a pause shorter than the timeout; resolves with the bytes read. */
function readInBursts(response: IncomingMessage, pauseMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let total = 0;
    let sincePause = 0;
    const pause = (): void => {
      sincePause = 0;
      response.pause();
      setTimeout(() => response.resume(), pauseMs);
    };
    response.on('data', (chunk: Buffer) => {
      total += chunk.length;
      sincePause += chunk.length;
      if (sincePause >= 4 * 1024 * 1024) pause();
    });
    response.on('end', () => resolve(total));
    response.on('error', reject);
    pause();
  });
}

it('closes the connection of a client that takes nothing for proxy.client_send_timeout_ms, ending its upstream request, and not that of a slow reader', async () => {
  const upstreamClosed = closing('/backend/endless');
  const started = performance.now();
  const [stalled, slow] = await Promise.all([get('/echo/endless'), get('/echo/finite')]);
  // The stalled client reads nothing: its socket fills, then the gateway's, then the upstream's.
  const slowRead = readInBursts(slow, 150);
  await upstreamClosed;
  expect(performance.now() - started).toBeGreaterThanOrEqual(SEND_TIMEOUT_MS);
  expect(await completesReadingOn(stalled)).toBe(false);
  expect(await slowRead).toBe(FINITE_BYTES);
});

it('does so too for a response the gateway unzips on its way', async () => {
  const upstreamClosed = closing('/backend/endless-gzip');
  const started = performance.now();
  const stalled = await get('/echo/endless-gzip');
  expect(stalled.headers['content-encoding']).toBeUndefined();
  await upstreamClosed;
  expect(performance.now() - started).toBeGreaterThanOrEqual(SEND_TIMEOUT_MS);
  expect(await completesReadingOn(stalled)).toBe(false);
});

/** Reads on the stalled response: whether it completes (false: cut off where the gateway closed the connection). */
function completesReadingOn(stalled: IncomingMessage): Promise<boolean> {
  const ended = new Promise<boolean>((resolve) => stalled.on('close', () => resolve(stalled.complete)));
  stalled.on('error', () => undefined);
  stalled.resume();
  return ended;
}
