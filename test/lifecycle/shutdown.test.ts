// Graceful stop: requests in flight finish, new ones are refused, the store closes.
import { once } from 'node:events';
import { Agent as HttpAgent, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { copyFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/serve.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { tempDir, testConfig } from '../helpers/config.js';
import { startEchoUpstream, type EchoUpstream } from '../helpers/echo-upstream.js';
import { startTestGateway } from '../helpers/gateway.js';
import { CERT_FILE, httpsConfig, KEY_FILE, TEST_CA } from '../helpers/tls.js';
import { echoBackend, sendRaw, startProxyFixture, statusOf } from '../gateway/support.js';

let upstream: EchoUpstream | null = null;
afterEach(async () => {
  await upstream?.close();
});

// Keep-alive, as browsers and API clients connect: stop must not wait for such idle connections.
const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true, ca: TEST_CA });

/**
 * `fresh`: on a new connection. After a stop, a keep-alive socket the server
 * has just closed may still sit in the agent's pool until the client reads
 * its end; a request sent on it fails with a reset, not with the refusal a
 * stopped listener gives.
 */
function get(url: string, headers: Record<string, string>, { fresh = false } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const secure = url.startsWith('https:');
    const agent = fresh ? false : secure ? httpsAgent : httpAgent;
    const req = (secure ? httpsRequest : request)(url, { headers, agent, ca: TEST_CA }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('start', () => {
  it('starts the analytics writer thread with the server, so the first entry need not wait for it', async () => {
    const gw = await startTestGateway();
    try {
      await expect.poll(() => gw.context.analytics.writerReady, { timeout: 2_000, interval: 10 }).toBe(true);
      expect(gw.context.analytics.pending).toBe(0);
    } finally {
      await gw.stop();
    }
  });
});

describe('graceful stop', () => {
  it('lets a request in flight finish on the upstream, then closes', async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
    upstream = await startEchoUpstream((req, res) => {
      if (!req.url?.startsWith('/slow')) return false;
      arrived();
      release = () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('finished');
      return true;
    });
    const gw = await startTestGateway();
    await gw.publishBackend(slowBackend(upstream.port));

    const inFlight = get(`${gw.url}/slow`, {});
    await slowArrived;
    const stopStarted = Date.now();
    const stopped = gw.stop().then(() => Date.now() - stopStarted);
    release();
    expect(await inFlight).toEqual({ status: 200, body: 'finished' });
    // The client keeps its connection alive; stop must not wait for the client's idle timeout (5 s).
    expect(await stopped).toBeLessThan(2000);
    await expect(get(`${gw.url}/slow`, {}, { fresh: true })).rejects.toThrow(/ECONNREFUSED/);
    expect(gw.context.db.open).toBe(false);
  });

  it('with HTTPS on, lets a request in flight on each listener finish, then closes both', async () => {
    const releases: (() => void)[] = [];
    let arrivals = 0;
    let bothArrived: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (bothArrived = resolve));
    upstream = await startEchoUpstream((req, res) => {
      if (!req.url?.startsWith('/slow')) return false;
      releases.push(() => res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`finished ${req.headers['x-forwarded-proto']}`));
      if (++arrivals === 2) bothArrived();
      return true;
    });
    const gw = await startTestGateway(httpsConfig());
    await gw.publishBackend(slowBackend(upstream.port));
    const httpsUrl = gw.httpsUrl!;
    // An idle keep-alive connection on the HTTPS listener as well.
    expect((await get(`${httpsUrl}/api-umbrella/v1/health`, {})).status).toBe(200);

    const inFlight = [get(`${gw.url}/slow`, {}), get(`${httpsUrl}/slow`, {})];
    await arrived;
    const stopStarted = Date.now();
    const stopped = gw.stop().then(() => Date.now() - stopStarted);
    // Both have stopped accepting while their requests are still in flight.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(get(`${httpsUrl}/slow`, { Connection: 'close' }, { fresh: true })).rejects.toThrow(/ECONNREFUSED/);
    for (const release of releases) release();
    expect(await Promise.all(inFlight)).toEqual([
      { status: 200, body: 'finished http' },
      { status: 200, body: 'finished https' },
    ]);
    expect(await stopped).toBeLessThan(2000);
    await expect(get(`${gw.url}/slow`, {}, { fresh: true })).rejects.toThrow(/ECONNREFUSED/);
    await expect(get(`${httpsUrl}/slow`, {}, { fresh: true })).rejects.toThrow(/ECONNREFUSED/);
    expect(gw.context.db.open).toBe(false);
  });
});

describe('a stop at proxy.shutdown_timeout_ms', () => {
  it('answers the requests still waiting on their upstream 502 in their format, as a reload does, logs and records 502, then closes their connections', async () => {
    const { logger, lines } = capturingLogger();
    let arrivals = 0;
    let bothArrived: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (bothArrived = resolve));
    // The upstream never answers /backend/hold.
    const fx = await startProxyFixture({
      config: { proxy: { shutdown_timeout_ms: 300 } },
      context: { logger },
      upstream: (req) => {
        if (!req.url!.startsWith('/backend/hold')) return false;
        if (++arrivals === 2) bothArrived();
        return true;
      },
    });
    try {
      await fx.gw.publishBackend(echoBackend(fx.echo));
      const dataDir = fx.gw.context.config.data_dir;
      // Keep-alive connections: each answer resolves only once the gateway has closed its connection.
      const held = (path: string) => sendRaw(fx.gw.url, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${fx.apiKey}\r\n\r\n`);
      const answers = Promise.all([held('/echo/hold'), held('/echo/hold.xml')]);
      await arrived;
      await fx.gw.stop();
      const [json, xml] = await answers;
      expect(statusOf(json)).toBe(502);
      expect(JSON.parse(json.slice(json.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'BAD_GATEWAY' } });
      expect(statusOf(xml)).toBe(502);
      expect(xml).toMatch(/Content-Type: application\/xml/i);
      expect(xml).toContain('<code>BAD_GATEWAY</code>');
      // The store is closed with the server: its file tells what analytics wrote before.
      const store = new Database(join(dataDir, 'parasol.db'), { readonly: true });
      try {
        const rows = store.prepare('SELECT request_path, response_status FROM analytics_logs ORDER BY request_path').all();
        expect(rows).toEqual([
          { request_path: '/echo/hold', response_status: 502 },
          { request_path: '/echo/hold.xml', response_status: 502 },
        ]);
      } finally {
        store.close();
      }
      // The failure is logged once (the second within 10 s is counted), saying what the clients got.
      const failures = lines.filter((line) => line.msg === 'upstream request failed');
      expect(failures.map((line) => line.answered)).toEqual(['BAD_GATEWAY']);
    } finally {
      await fx.close();
    }
  });
});

describe('start-up with HTTPS', () => {
  it('a taken HTTPS port stops start-up and lets go of the HTTP port, the store and the data_dir lock', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const takenPort = (taken.address() as { port: number }).port;
    // A fixed HTTP port, so that starting again shows the failed start let go of it.
    const httpPort = await freePort();
    const config = testConfig(httpsConfig({ listen: { host: '127.0.0.1', port: httpPort, https_port: takenPort } }));
    try {
      // The keys it carries are those the command line names the sources of.
      await expect(startServer(config)).rejects.toMatchObject({
        message: `listen.https_port: ${takenPort} is in use on 127.0.0.1 (EADDRINUSE)`,
        keys: ['listen.https_port', 'listen.host'],
      });
    } finally {
      taken.close();
    }
    // The same data_dir starts again: nothing of the failed start holds on.
    const again = await startServer(config);
    expect(again.url).toBe(`http://127.0.0.1:${httpPort}`);
    expect(again.httpsUrl).toBe(`https://127.0.0.1:${takenPort}`);
    await again.stop();
  });
});

describe('start-up with HTTPS, certificate files gone since the config was checked', () => {
  it('stops with the line the check would have given, carrying the keys that name the files', async () => {
    const dir = tempDir();
    const cert = join(dir, 'cert.pem');
    copyFileSync(CERT_FILE, cert);
    const config = testConfig(httpsConfig({ tls: { cert_file: cert, key_file: KEY_FILE } }));
    rmSync(cert);
    await expect(startServer(config)).rejects.toMatchObject({
      message: `tls.cert_file: cannot read ${cert}: no such file (ENOENT)`,
      keys: ['tls.cert_file', 'tls.key_file'],
    });
    // Nothing of the failed start holds on: the same data_dir starts again once the file is back.
    copyFileSync(CERT_FILE, cert);
    await (await startServer(config)).stop();
  });
});

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

/** Everything under /slow goes, without a key or limits, to the upstream on `port`. */
function slowBackend(port: number) {
  return {
    name: 'slow',
    frontend_host: '*',
    backend_host: '',
    servers: [{ host: '127.0.0.1', port }],
    url_matches: [{ frontend_prefix: '/slow', backend_prefix: '/slow' }],
    settings: { disable_api_key: true, rate_limit_mode: 'unlimited' as const },
  };
}
