import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { echoBackend, errorCode, freePort, open, send, startProxyFixture, type ProxyFixture } from './support.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

let streaming: { response: ServerResponse; closed: Promise<void> } | null = null;
const upstream: CustomHandler = (request, response) => {
  const url = request.url ?? '';
  if (url.startsWith('/backend/slow')) return true; // never answers
  if (url.startsWith('/backend/reset')) {
    response.writeHead(200, { 'content-length': '1000' });
    response.write('partial', () => response.socket?.destroy());
    return true;
  }
  if (url.startsWith('/backend/forever')) {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('tick;');
    streaming = { response, closed: new Promise((resolve) => response.on('close', () => resolve())) };
    return true;
  }
  return false;
};

let fx: ProxyFixture;
let tlsServer: HttpsServer;
beforeAll(async () => {
  fx = await startProxyFixture({ upstream, config: { proxy: { response_timeout_ms: 300, connect_timeout_ms: 2000 } } });
  const closedPort = await freePort();
  tlsServer = createHttpsServer({ key: fixture('self-signed.key'), cert: fixture('self-signed.crt') }, (_request, response) => response.end('secret'));
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
  const { gw, echo } = fx;
  await gw.publishBackend(echoBackend(echo));
  await gw.publishBackend(echoBackend(echo, { servers: [{ host: '127.0.0.1', port: closedPort }], url_matches: [{ frontend_prefix: '/dead/', backend_prefix: '/' }] }));
  await gw.publishBackend(
    echoBackend(echo, { servers: [{ host: 'no-such-host.invalid', port: 80 }], url_matches: [{ frontend_prefix: '/nodns/', backend_prefix: '/' }] }),
  );
  await gw.publishBackend(
    echoBackend(echo, {
      backend_protocol: 'https',
      backend_host: 'localhost',
      servers: [{ host: '127.0.0.1', port: (tlsServer.address() as AddressInfo).port }],
      url_matches: [{ frontend_prefix: '/tls/', backend_prefix: '/' }],
    }),
  );
});
afterAll(async () => {
  streaming?.response.destroy();
  tlsServer.closeAllConnections();
  tlsServer.close();
  await fx.close();
});

const headers = () => ({ 'X-Api-Key': fx.apiKey });

describe('upstream failures', () => {
  it('answers 502 BAD_GATEWAY when the upstream refuses the connection, in the negotiated format', async () => {
    const json = await send(fx.gw.url, '/dead/x', { headers: headers() });
    expect(json.status).toBe(502);
    expect(JSON.parse(json.text).error).toEqual({
      code: 'BAD_GATEWAY',
      message: `The API backend could not be reached. Try again later or contact us at ${fx.gw.url}/contact/ for assistance`,
    });
    const xml = await send(fx.gw.url, '/dead/x.xml', { method: 'POST', body: 'payload', headers: headers() });
    expect(xml.status).toBe(502);
    expect(xml.headers['content-type']).toBe('application/xml');
    expect(xml.text).toContain('<code>BAD_GATEWAY</code>');
  });

  it('answers 502 when the upstream host does not resolve', async () => {
    const reply = await send(fx.gw.url, '/nodns/x', { headers: headers() });
    expect([reply.status, errorCode(reply)]).toEqual([502, 'BAD_GATEWAY']);
  });

  it('answers 502 when an https upstream presents a certificate it cannot verify', async () => {
    const reply = await send(fx.gw.url, '/tls/x', { headers: headers() });
    expect([reply.status, errorCode(reply)]).toEqual([502, 'BAD_GATEWAY']);
  });

  it('answers 504 GATEWAY_TIMEOUT when no response comes within proxy.response_timeout_ms', async () => {
    const started = Date.now();
    const reply = await send(fx.gw.url, '/echo/slow', { headers: headers() });
    expect([reply.status, errorCode(reply)]).toEqual([504, 'GATEWAY_TIMEOUT']);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('ends the client response when the upstream resets mid-response, and keeps serving', async () => {
    const response = await open(fx.gw.url, '/echo/reset', { headers: headers() });
    expect(response.statusCode).toBe(200);
    await expect(response.body.text()).rejects.toThrow();
    expect((await send(fx.gw.url, '/echo/ok', { headers: headers() })).status).toBe(200);
  });

  it('stops the upstream request when the client goes away', async () => {
    streaming = null;
    const controller = new AbortController();
    const response = await open(fx.gw.url, '/echo/forever', { headers: headers(), signal: controller.signal });
    const chunks = response.body[Symbol.asyncIterator]();
    expect(String((await chunks.next()).value)).toBe('tick;');
    controller.abort();
    await streaming!.closed;
    expect((await send(fx.gw.url, '/echo/ok', { headers: headers() })).status).toBe(200);
  });
});
