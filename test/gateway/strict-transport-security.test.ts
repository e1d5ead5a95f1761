// tls.http_strict_transport_security (API Umbrella's hosts[].http_strict_transport_security):
// every answer of the HTTPS listener carries it — proxied, the gateway's own
// errors, the admin's pages — and no answer over plain HTTP does.
import { afterEach, describe, expect, it } from 'vitest';
import type { CustomHandler } from '../helpers/echo-upstream.js';
import { httpsConfig } from '../helpers/tls.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

const HSTS = 'max-age=31536000; includeSubDomains';

let fx: ProxyFixture | null = null;
afterEach(async () => {
  await fx?.close();
  fx = null;
});

async function start(tls: Record<string, unknown>, upstream?: CustomHandler): Promise<ProxyFixture> {
  const base = httpsConfig();
  fx = await startProxyFixture({ config: { ...base, tls: { ...(base.tls as object), ...tls } }, upstream });
  await fx.gw.publishBackend(echoBackend(fx.echo));
  return fx;
}

describe('Strict-Transport-Security', () => {
  it('is on every answer of the HTTPS listener, and on none over plain HTTP', async () => {
    const { gw, apiKey } = await start({ http_strict_transport_security: HSTS });
    const https = gw.httpsUrl!;
    const proxied = await send(https, '/echo/x', { headers: { 'X-Api-Key': apiKey } });
    const refused = await send(https, '/echo/x');
    const page = await send(https, '/admin/login');
    const health = await send(https, '/api-umbrella/v1/health');
    expect([proxied.status, refused.status, page.status, health.status]).toEqual([200, 403, 200, 200]);
    for (const reply of [proxied, refused, page, health]) expect(reply.headers['strict-transport-security']).toBe(HSTS);
    expect(health.headers['content-type']).toBe('application/json');
    const plain = await send(gw.url, '/echo/x', { headers: { 'X-Api-Key': apiKey } });
    expect(plain.status).toBe(200);
    expect(plain.headers['strict-transport-security']).toBeUndefined();
  });

  it("lets a backend's own header stand, and is not sent unless set", async () => {
    const own = 'max-age=60';
    const { gw, apiKey } = await start({ http_strict_transport_security: HSTS }, (request, response) => {
      if (!request.url!.includes('/own')) return false;
      response.writeHead(200, { 'strict-transport-security': own, 'content-type': 'text/plain' }).end('own');
      return true;
    });
    expect((await send(gw.httpsUrl!, '/echo/own', { headers: { 'X-Api-Key': apiKey } })).headers['strict-transport-security']).toBe(own);
    await fx!.close();
    fx = null;
    const unset = await start({});
    expect((await send(unset.gw.httpsUrl!, '/echo/x', { headers: { 'X-Api-Key': unset.apiKey } })).headers['strict-transport-security']).toBeUndefined();
  });
});
