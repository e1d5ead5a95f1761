import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamFailureLog, newFailureCount } from '../../src/gateway/upstream-failures.js';
import { ManualClock, systemClock } from '../../src/lib/clock.js';
import { echoBackend, freePort, send, startProxyFixture, type ProxyFixture } from './support.js';

const logged: Record<string, unknown>[] = [];
const clock = new ManualClock();
let fx: ProxyFixture;
let deadOrigin: string;
beforeAll(async () => {
  const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
  fx = await startProxyFixture({ context: { logger, clock } });
  const port = await freePort();
  deadOrigin = `http://127.0.0.1:${port}`;
  await fx.gw.publishBackend(echoBackend(fx.echo, { servers: [{ host: '127.0.0.1', port }], url_matches: [{ frontend_prefix: '/dead/', backend_prefix: '/' }] }));
});
afterAll(() => fx.close());

const failures = () => logged.filter((line) => line.msg === 'upstream request failed');

describe('upstream failures in the log', () => {
  it('logs which backend and server failed, how, and what the client got; a dead server once, then at most every 10 s with a count', async () => {
    for (let request = 0; request < 3; request++) {
      expect((await send(fx.gw.url, '/dead/x?api_key=not-logged', { headers: { 'X-Api-Key': fx.apiKey } })).status).toBe(502);
    }
    expect(failures()).toEqual([expect.objectContaining({ level: 40, server: deadOrigin, error: 'ECONNREFUSED', answered: 'BAD_GATEWAY', failures: 1 })]);
    expect(failures()[0]!.api_backend_id).toEqual(expect.any(String));
    expect(JSON.stringify(logged)).not.toContain('not-logged');
    clock.advance(10_000);
    await send(fx.gw.url, '/dead/x', { headers: { 'X-Api-Key': fx.apiKey } });
    expect(failures().at(-1)).toMatchObject({ server: deadOrigin, failures: 3 });
    expect(failures()).toHaveLength(2);
  });

  it('logs nothing for a request that worked', async () => {
    const before = logged.length;
    await fx.gw.publishBackend(echoBackend(fx.echo));
    expect((await send(fx.gw.url, '/echo/fine', { headers: { 'X-Api-Key': fx.apiKey } })).status).toBe(200);
    expect(logged.length).toBe(before);
  });
});

describe('the count of a burst of failures', () => {
  const lines: Record<string, unknown>[] = [];
  let nextLine: () => void = () => undefined;
  const logger = pino({ level: 'warn' }, { write: (line: string) => (lines.push(JSON.parse(line) as Record<string, unknown>), nextLine()) });
  const aLine = () => new Promise<void>((resolve) => (nextLine = resolve));
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const timedOut = Object.assign(new Error('timed out'), { code: 'UND_ERR_HEADERS_TIMEOUT' });

  it('is logged when the window ends, with the last failure, though no failure comes after the burst; and while failures go on, once a window', async () => {
    const log = new UpstreamFailureLog(logger, systemClock, 30);
    const server = { origin: 'http://10.0.0.1:80', failures: newFailureCount() };
    log.record({ backendId: 'b1', server, error: refused, answered: 'BAD_GATEWAY' });
    expect(lines).toEqual([expect.objectContaining({ server: server.origin, error: 'ECONNREFUSED', failures: 1 })]);
    const windowEnd = aLine();
    log.record({ backendId: 'b1', server, error: refused, answered: 'BAD_GATEWAY' });
    log.record({ backendId: 'b1', server, error: timedOut, answered: 'GATEWAY_TIMEOUT' });
    expect(lines).toHaveLength(1);
    await windowEnd;
    expect(lines[1]).toMatchObject({ api_backend_id: 'b1', server: server.origin, error: 'UND_ERR_HEADERS_TIMEOUT', answered: 'GATEWAY_TIMEOUT', failures: 2 });
    // Logging the count opened another window: a failure in it waits for its end too.
    const nextWindowEnd = aLine();
    log.record({ backendId: 'b1', server, error: refused, answered: 'BAD_GATEWAY' });
    expect(lines).toHaveLength(2);
    await nextWindowEnd;
    expect(lines[2]).toMatchObject({ error: 'ECONNREFUSED', failures: 1 });
  });
});
