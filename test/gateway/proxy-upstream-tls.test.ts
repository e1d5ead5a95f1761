// HTTPS upstreams and the certificates they show: checked by default, an
// internal CA trusted through proxy.upstream_ca_file, any certificate taken
// with proxy.upstream_tls_verify: false (API Umbrella's nginx never checks).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from './support.js';

const fixturePath = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
/** A certificate for localhost and 127.0.0.1 that no public CA signed. */
const SELF_SIGNED = fixturePath('self-signed.crt');

let upstream: Server;
beforeAll(async () => {
  upstream = createServer({ key: readFileSync(fixturePath('self-signed.key')), cert: readFileSync(SELF_SIGNED) }, (_request, response) => response.end('secret'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
});
afterAll(() => {
  upstream.closeAllConnections();
  upstream.close();
});

let fx: ProxyFixture | null = null;
afterEach(async () => {
  await fx?.close();
  fx = null;
});

/** A gateway with `proxy` settings and a backend on the upstream, named `backendHost` (the name its certificate must hold). */
async function statusThrough(proxy: Record<string, unknown>, backendHost: string): Promise<number> {
  fx = await startProxyFixture({ config: { proxy } });
  const servers = [{ host: '127.0.0.1', port: (upstream.address() as AddressInfo).port }];
  await fx.gw.publishBackend(echoBackend(fx.echo, { backend_protocol: 'https', backend_host: backendHost, servers, url_matches: [{ frontend_prefix: '/tls/', backend_prefix: '/' }] }));
  return (await send(fx.gw.url, '/tls/x', { headers: { 'X-Api-Key': fx.apiKey } })).status;
}

describe('HTTPS upstreams', () => {
  it('are refused a certificate no trusted CA signed, by default', async () => {
    expect(await statusThrough({}, 'localhost')).toBe(502);
  });

  it('are trusted through proxy.upstream_ca_file, for the names the certificate holds only', async () => {
    expect(await statusThrough({ upstream_ca_file: SELF_SIGNED }, 'localhost')).toBe(200);
    await fx!.close();
    expect(await statusThrough({ upstream_ca_file: SELF_SIGNED }, 'other.example')).toBe(502);
  });

  it('take any certificate with proxy.upstream_tls_verify: false, as API Umbrella does', async () => {
    expect(await statusThrough({ upstream_tls_verify: false }, 'other.example')).toBe(200);
  });
});
