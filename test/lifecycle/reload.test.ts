// A reload (SIGHUP; RunningServer.reload) applies a changed config without
// closing the listeners: open connections carry on with the next app, what
// was in flight finishes on the app it started on, and what outlives an app
// (rate limit counts, analytics) is shared. Keys read at start keep their
// running values and are named.
import { once } from 'node:events';
import { connect as connectTcp } from 'node:net';
import { writeFileSync, rmSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { tempDir, testConfig } from '../helpers/config.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startLocalSmtp, type LocalSmtp } from '../mailer/local-smtp.js';
import { submitSignup, VALID_SIGNUP } from '../signup/signup-app.js';
import { connect, startWebSocketUpstream, type WebSocketUpstream } from '../helpers/websocket-upstream.js';
import { echoBackend, send, startProxyFixture, type ProxyFixture } from '../gateway/support.js';

let fx: ProxyFixture | null = null;
let sockets: WebSocketUpstream | null = null;
afterEach(async () => {
  await fx?.close();
  await sockets?.close();
  fx = sockets = null;
});

/** The running config with `changes` (whole sections) in place, read through the real loader as a reload reads the file. */
function reloaded(gw: TestGateway, changes: Record<string, unknown>): Config {
  return testConfig({ ...structuredClone(gw.context.config), ...changes });
}

/** A GET on `agent`'s connection; `reused`: whether it went on a connection opened before. */
function get(url: string, agent: Agent, headers: Record<string, string>): Promise<{ status: number; body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { agent, headers }, (response: IncomingMessage) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body, reused: sent.reusedSocket }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('a reload', () => {
  it('applies the changed keys to the next request, on a connection opened before it too', async () => {
    fx = await startProxyFixture();
    await fx.gw.publishBackend(echoBackend(fx.echo));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const headers = { 'X-Api-Key': fx.apiKey, 'User-Agent': 'Probe/1.0' };
    expect((await get(`${fx.gw.url}/echo/before`, agent, headers)).status).toBe(200);

    const outcome = await fx.gw.reload(reloaded(fx.gw, { ban: { user_agents: ['~*^probe/'] } }));
    expect(outcome).toMatchObject({ applied: ['ban.user_agents'], needRestart: [] });
    const banned = await get(`${fx.gw.url}/echo/after`, agent, headers);
    expect(banned).toMatchObject({ status: 403, reused: true });
    expect(banned.body).toContain('Please contact us for assistance.');
    expect((await get(`${fx.gw.url}/echo/after`, agent, { ...headers, 'User-Agent': 'Other/1.0' })).status).toBe(200);
    expect(fx.gw.context.config.ban.user_agents).toEqual(['~*^probe/']);
    agent.destroy();
    await outcome.retired;
  });

  it('lets a request in flight finish on the app it started on, which closes after it; both are logged', async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
    fx = await startProxyFixture({
      upstream: (req, res) => {
        if (req.url !== '/backend/slow') return false;
        arrived();
        release = () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('finished');
        return true;
      },
    });
    await fx.gw.publishBackend(echoBackend(fx.echo));
    const headers = { 'X-Api-Key': fx.apiKey };
    const inFlight = send(fx.gw.url, '/echo/slow', { headers });
    await slowArrived;

    const outcome = await fx.gw.reload(reloaded(fx.gw, { site_name: 'Reloaded' }));
    let retired = false;
    void outcome.retired.then(() => (retired = true));
    expect((await send(fx.gw.url, '/echo/fast', { headers })).status).toBe(200);
    expect(retired).toBe(false);
    release();
    expect(await inFlight).toMatchObject({ status: 200, text: 'finished' });
    await outcome.retired;
    fx.gw.context.analytics.flush();
    const paths = fx.gw.context.db.prepare('SELECT request_path FROM analytics_logs ORDER BY request_path').pluck().all();
    expect(paths).toEqual(['/echo/fast', '/echo/slow']);
  });

  it('serves every request of clients that keep sending through several reloads', async () => {
    fx = await startProxyFixture();
    await fx.gw.publishBackend(echoBackend(fx.echo));
    const gw = fx.gw;
    const headers = { 'X-Api-Key': fx.apiKey };
    let sending = true;
    const statuses: number[] = [];
    const client = async (agent: Agent | false): Promise<void> => {
      while (sending) statuses.push((await get(`${gw.url}/echo/load`, agent as Agent, headers)).status);
    };
    const keepingAlive = new Agent({ keepAlive: true, maxSockets: 2 });
    const clients = [client(keepingAlive), client(keepingAlive), client(false), client(false)];
    for (let round = 1; round <= 5; round++) {
      const countBefore = statuses.length;
      const outcome = await gw.reload(reloaded(gw, { site_name: `Round ${round}` }));
      expect(outcome.applied).toEqual(['site_name']);
      // Each app serves some of the requests before the next reload replaces it.
      await expect.poll(() => statuses.length, { interval: 5 }).toBeGreaterThan(countBefore + 20);
    }
    sending = false;
    await Promise.all(clients);
    keepingAlive.destroy();
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(statuses.length).toBeGreaterThan(100);
  });

  it("keeps the rate limits' counts", async () => {
    fx = await startProxyFixture();
    const oncePerMinute = [{ duration: 60_000, limit_by: 'ip', limit: 1, response_headers: true }];
    await fx.gw.publishBackend(echoBackend(fx.echo, { settings: { rate_limit_mode: 'custom', rate_limits: oncePerMinute } }));
    const headers = { 'X-Api-Key': fx.apiKey };
    expect((await send(fx.gw.url, '/echo/one', { headers })).status).toBe(200);
    await fx.gw.reload(reloaded(fx.gw, { site_name: 'Reloaded' }));
    expect((await send(fx.gw.url, '/echo/two', { headers })).status).toBe(429);
  });

  it("keeps global_rate_limits' counts", async () => {
    // A burst of 2: room for the two admin calls that publish the backend.
    fx = await startProxyFixture({ config: { global_rate_limits: { ip_rate: 1, ip_burst: 2 } } });
    await fx.gw.publishBackend(echoBackend(fx.echo));
    // A client of its own (loopback is a trusted proxy): the admin calls above count under 127.0.0.1.
    const headers = { 'X-Api-Key': fx.apiKey, 'X-Forwarded-For': '198.51.100.9' };
    for (const path of ['/echo/one', '/echo/two', '/echo/three']) expect((await send(fx.gw.url, path, { headers })).status).toBe(200);
    await fx.gw.reload(reloaded(fx.gw, { site_name: 'Reloaded' }));
    expect((await send(fx.gw.url, '/echo/four', { headers })).status).toBe(429);
  });

  it('keeps the running values of keys read at start, and names them', async () => {
    fx = await startProxyFixture();
    const running = fx.gw.context.config;
    const next = reloaded(fx.gw, {
      listen: { host: '127.0.0.1', port: 8 },
      proxy: { ...running.proxy, max_header_size: 65_536, response_timeout_ms: 5_000 },
      analytics: { ...running.analytics, retention_days: 7, timezone: 'America/Denver' },
    });
    const outcome = await fx.gw.reload(next);
    expect(outcome.applied).toEqual(['proxy.response_timeout_ms', 'analytics.timezone']);
    expect(outcome.needRestart).toEqual(['listen.port', 'proxy.max_header_size', 'analytics.retention_days']);
    const now = fx.gw.context.config;
    expect([now.listen.port, now.proxy.max_header_size, now.analytics.retention_days]).toEqual([0, 32_768, 90]);
    expect([now.proxy.response_timeout_ms, now.analytics.timezone]).toEqual([5_000, 'America/Denver']);
    expect(Object.isFrozen(now.proxy)).toBe(true);
    expect((await fetch(`${fx.gw.url}/api-umbrella/v1/health`)).status).toBe(200);
  });

  it('changes nothing when no key changed', async () => {
    fx = await startProxyFixture();
    const app = fx.gw.app;
    expect(await fx.gw.reload(reloaded(fx.gw, {}))).toMatchObject({ applied: [], needRestart: [] });
    expect(fx.gw.app).toBe(app);
  });

  it('keeps the running app when the next one cannot be built', async () => {
    fx = await startProxyFixture();
    const homepage = join(tempDir(), 'home.html');
    writeFileSync(homepage, '<h1>Home</h1>');
    const next = reloaded(fx.gw, { site_name: 'Never', homepage: { file: homepage } });
    rmSync(homepage);
    await expect(fx.gw.reload(next)).rejects.toThrow(/home\.html/);
    expect(fx.gw.context.config.site_name).toBe('Parasol');
    expect((await fetch(`${fx.gw.url}/`)).status).toBe(200);
  });
});

describe('what an app serves when a reload retires it', () => {
  /** A fixture whose upstream holds requests to /backend/hold (it never answers them); `held` resolves at the first. */
  async function holdingFixture(config: Record<string, unknown>) {
    let arrived: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (arrived = resolve));
    fx = await startProxyFixture({
      config,
      upstream: (req) => {
        if (!req.url!.startsWith('/backend/hold')) return false;
        arrived();
        return true;
      },
    });
    await fx.gw.publishBackend(echoBackend(fx.echo));
    // In an object: an async function's promise would wait for `held` itself.
    return { held };
  }

  it('is cut off once proxy.shutdown_timeout_ms has passed; a request body that stopped arriving loses its connection after proxy.client_body_timeout_ms', async () => {
    const { held } = await holdingFixture({ proxy: { shutdown_timeout_ms: 300, client_body_timeout_ms: 1_000 } });
    const { port } = new URL(fx!.gw.url);
    const client = connectTcp(Number(port), '127.0.0.1');
    client.write(`POST /echo/hold HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${fx!.apiKey}\r\nContent-Length: 100\r\n\r\n0123456789`);
    await held;
    const closed = once(client, 'close');
    let answer = '';
    client.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const outcome = await fx!.gw.reload(reloaded(fx!.gw, { site_name: 'Reloaded' }));
    await outcome.retired;
    expect(answer).toMatch(/^HTTP\/1\.1 502 /);
    // The watch on request bodies is the process's: the app that took the request is gone.
    await closed;
  });

  it('counts a pipelined request whose client left before its turn, which Node never closes', async () => {
    const { held } = await holdingFixture({ proxy: { shutdown_timeout_ms: 60_000 } });
    const { port } = new URL(fx!.gw.url);
    const client = connectTcp(Number(port), '127.0.0.1');
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${fx!.apiKey}\r\n\r\n`;
    // The second waits behind the first, the third (one of Fastify's routes) behind both.
    client.write(get('/echo/hold') + get('/echo/queued') + get('/api-umbrella/v1/health'));
    await held;
    client.destroy();
    const outcome = await fx!.gw.reload(reloaded(fx!.gw, { site_name: 'Reloaded' }));
    await outcome.retired;
    fx!.gw.context.analytics.flush();
    const paths = fx!.gw.context.db.prepare('SELECT request_path FROM analytics_logs ORDER BY request_path').pluck().all();
    expect(paths).toEqual(['/echo/hold', '/echo/queued']);
  });
});

describe('mail at a reload', () => {
  let smtp: LocalSmtp | null = null;
  afterEach(() => smtp?.close());

  it('keeps a welcome mail waiting for its retry: the mailer is the process\'s while its settings stay the same', async () => {
    smtp = await startLocalSmtp({ refuseFirst: 1 });
    const { logger, lines } = capturingLogger();
    const gw = await startTestGateway({ mailer: { from: 'keys@weather.example', smtp: { host: '127.0.0.1', port: smtp.port } }, signup: { verify_email: true } }, { logger });
    try {
      const mailer = gw.context.mailer;
      expect((await submitSignup(gw.app, VALID_SIGNUP)).statusCode).toBe(200);
      await smtp.attemptsReach(1);
      await (await gw.reload(reloaded(gw, { site_name: 'Renamed' }))).retired;
      expect(gw.context.mailer).toBe(mailer);
      expect(lines.map((line) => line.msg)).not.toContain('email given up');
    } finally {
      await gw.stop();
    }
  });
});

describe('mail at a reload that changes the mailer', () => {
  const servers: LocalSmtp[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('keeps the mailer when only key_expiry_notice_days changes, and sends a mail waiting for its retry through new SMTP settings at once', async () => {
    const failing = await startLocalSmtp({ refuseFirst: Infinity });
    const fixed = await startLocalSmtp();
    servers.push(failing, fixed);
    const { logger, lines } = capturingLogger();
    const smtpOn = (port: number) => ({ from: 'keys@weather.example', smtp: { host: '127.0.0.1', port } });
    const gw = await startTestGateway({ mailer: smtpOn(failing.port), signup: { verify_email: true } }, { logger });
    try {
      const mailer = gw.context.mailer;
      expect((await submitSignup(gw.app, VALID_SIGNUP)).statusCode).toBe(200);
      await failing.attemptsReach(1);
      await (await gw.reload(reloaded(gw, { mailer: { ...smtpOn(failing.port), key_expiry_notice_days: 3 } }))).retired;
      expect(gw.context.mailer).toBe(mailer);
      await (await gw.reload(reloaded(gw, { mailer: smtpOn(fixed.port) }))).retired;
      const [welcome] = await fixed.mails(1);
      expect(welcome!.to).toEqual([VALID_SIGNUP.email]);
      expect(lines.map((line) => line.msg)).not.toContain('email given up');
    } finally {
      await gw.stop();
    }
  });
});

describe('a WebSocket tunnel open at a reload', () => {
  async function tunnelThroughGateway(shutdownTimeoutMs: number) {
    sockets = await startWebSocketUpstream();
    fx = await startProxyFixture({ config: { proxy: { shutdown_timeout_ms: shutdownTimeoutMs } } });
    await fx.gw.publishBackend(echoBackend(fx.echo, { servers: [{ host: '127.0.0.1', port: sockets.port }], url_matches: [{ frontend_prefix: '/live/', backend_prefix: '/socket/' }] }));
    return (await connect(`${fx.gw.url.replace('http', 'ws')}/live/?api_key=${fx.apiKey}`)).socket;
  }

  it('carries on through it, and is closed once proxy.shutdown_timeout_ms has passed', async () => {
    const socket = await tunnelThroughGateway(300);
    const outcome = await fx!.gw.reload(reloaded(fx!.gw, { site_name: 'Reloaded' }));
    socket.send('still there');
    const [echoed] = (await once(socket, 'message')) as [Buffer];
    expect(echoed.toString()).toBe('still there');
    const closed = once(socket, 'close');
    await outcome.retired;
    await closed;
    // The next app takes new tunnels.
    const again = await connect(`${fx!.gw.url.replace('http', 'ws')}/live/?api_key=${fx!.apiKey}`);
    again.socket.close();
  });

  it('is closed by a stop that comes before the timeout', async () => {
    const socket = await tunnelThroughGateway(60_000);
    await fx!.gw.reload(reloaded(fx!.gw, { site_name: 'Reloaded' }));
    const closed = once(socket, 'close');
    const started = Date.now();
    await fx!.close();
    fx = null;
    await closed;
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
