// proxy.client_body_timeout_ms: a request body that stops arriving gets a 408
// and its connection closes, as with API Umbrella's nginx; a body that keeps
// coming, however slowly in all, and an upstream that takes its time, do not.
// proxy.client_keep_alive_timeout_ms: how long an idle client connection stays.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { echoBackend, send, sendRaw, startProxyFixture, statusOf, type ProxyFixture } from './support.js';

const TIMEOUT_MS = 400;

/** How the upstream's copies of the requests to /backend/watched ended. */
const upstreamEnded: Array<Promise<'whole' | 'cut'>> = [];

const upstream: CustomHandler = (request, response) => {
  const url = request.url ?? '';
  if (url.startsWith('/backend/watched')) {
    upstreamEnded.push(new Promise((resolve) => request.on('close', () => resolve(request.complete ? 'whole' : 'cut'))));
    request.resume();
    request.on('end', () => response.end('whole'));
  } else if (url.startsWith('/backend/slow-reader')) {
    // Takes the body only after three timeouts: the gateway's copy of it waits, not the client.
    let length = 0;
    setTimeout(() => request.on('data', (chunk: Buffer) => (length += chunk.length)), 3 * TIMEOUT_MS);
    request.on('end', () => response.end(String(length)));
  } else if (url.startsWith('/backend/slow-answer')) {
    request.resume();
    request.on('end', () => setTimeout(() => response.end('late'), 3 * TIMEOUT_MS));
  } else return false;
  return true;
};

let fx: ProxyFixture;
beforeAll(async () => {
  fx = await startProxyFixture({ upstream, config: { proxy: { client_body_timeout_ms: TIMEOUT_MS, client_keep_alive_timeout_ms: 5000 } } });
  await fx.gw.publishBackend(echoBackend(fx.echo));
});
afterAll(() => fx.close());

/** A request whose head promises ten bytes of body, of which three come. */
function stalledPost(path: string, headers = `X-Api-Key: ${fx.apiKey}\r\n`): Promise<string> {
  return sendRaw(fx.gw.url, `POST ${path} HTTP/1.1\r\nHost: gateway.test\r\n${headers}Content-Length: 10\r\n\r\nabc`);
}

describe('a request body that stops arriving', () => {
  it('gets 408 REQUEST_TIMEOUT once it has paused for the timeout, the connection closes, and the upstream request is abandoned', async () => {
    const startedAt = performance.now();
    const answer = await stalledPost('/echo/watched');
    const elapsed = performance.now() - startedAt;
    expect(statusOf(answer)).toBe(408);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe(JSON.stringify({ error: { code: 'REQUEST_TIMEOUT', message: 'The request took too long to arrive.' } }));
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(await upstreamEnded.at(-1)).toBe('cut');
  });

  it('answers in the format the request asks for', async () => {
    const answer = await stalledPost('/echo/watched.xml');
    expect(statusOf(answer)).toBe(408);
    expect(answer).toContain('<code>REQUEST_TIMEOUT</code>');
  });

  it('is answered the same on the gateway\'s own endpoints, which go on serving', async () => {
    const answer = await stalledPost('/admin/login', 'Content-Type: application/x-www-form-urlencoded\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(statusOf(answer)).toBe(408);
    expect((await send(fx.gw.url, '/admin/login')).status).toBe(200);
    expect((await send(fx.gw.url, '/echo/after', { headers: { 'X-Api-Key': fx.apiKey } })).status).toBe(200);
  });

  it('closes the connection of a request answered before its body was read, instead of holding it until the keep-alive timeout', async () => {
    const startedAt = performance.now();
    const answer = await stalledPost('/echo/watched', '');
    expect(statusOf(answer)).toBe(403);
    expect(answer).toContain('API_KEY_MISSING');
    // Without the watch, the connection would wait for the rest of the body until the keep-alive timeout (72 s; the client gives up at 5).
    expect(performance.now() - startedAt).toBeLessThan(TIMEOUT_MS + 2000);
  });
});

describe('what is not a stalled body', () => {
  it('a body that keeps coming in short pauses, for longer than the timeout in all', async () => {
    async function* slowly() {
      for (let index = 0; index < 6; index++) {
        yield Buffer.from(`${index}`);
        await delay(TIMEOUT_MS / 4);
      }
    }
    const reply = await send(fx.gw.url, '/echo/watched', { method: 'POST', headers: { 'X-Api-Key': fx.apiKey }, body: slowly() });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('whole');
  });

  it('an upstream that takes the body slowly', async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 'x');
    const reply = await send(fx.gw.url, '/echo/slow-reader', { method: 'POST', headers: { 'X-Api-Key': fx.apiKey }, body });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(String(body.length));
  });

  it('an upstream that answers long after the whole body came', async () => {
    const reply = await send(fx.gw.url, '/echo/slow-answer', { method: 'POST', headers: { 'X-Api-Key': fx.apiKey }, body: 'all of it' });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('late');
  });
});

describe('idle client connections', () => {
  it('are kept for proxy.client_keep_alive_timeout_ms, which responses announce', async () => {
    const reply = await send(fx.gw.url, '/echo/kept', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(reply.headers['keep-alive']).toBe('timeout=5');
    expect((await send(fx.gw.url, '/admin/login')).headers['keep-alive']).toBe('timeout=5');
  });

  it('are not kept with proxy.client_keep_alive_timeout_ms 0, as nginx keepalive_timeout 0: each response closes its connection', async () => {
    const closing = await startProxyFixture({ config: { proxy: { client_keep_alive_timeout_ms: 0 } } });
    try {
      await closing.gw.publishBackend(echoBackend(closing.echo));
      // Two requests on one connection: the first is answered with Connection: close, and the connection ends there.
      const request = `GET /echo/one HTTP/1.1\r\nHost: gateway.test\r\nX-Api-Key: ${closing.apiKey}\r\n\r\n`;
      const raw = await sendRaw(closing.gw.url, request + request.replace('/one', '/two'));
      expect(statusOf(raw)).toBe(200);
      expect(raw).toMatch(/\r\nconnection: close\r\n/i);
      expect(raw.match(/^HTTP\/1\.1 /gm)).toHaveLength(1);
    } finally {
      await closing.close();
    }
  });
});
