// Upstream answers Node would not write as they came, from a raw TCP
// upstream: the client gets an answer it can read (never a connection left
// hanging, never a close with nothing), and the log and analytics say what
// it got.
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnalyticsEntry } from '../../src/analytics/log-entry.js';
import { ManualClock } from '../../src/lib/clock.js';
import { echoBackend, sendRaw, startProxyFixture, statusOf, type ProxyFixture } from './support.js';

/** What the raw upstream writes for each path; it then closes the connection. */
const ANSWERS: Record<string, string> = {
  '/ctl-reason': 'HTTP/1.1 200 O\x01K\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok',
  '/latin1-reason': 'HTTP/1.1 404 Nicht gefunden \xe9\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nnope',
  '/close-after-headers': 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 50\r\n\r\n',
  '/bad-gzip': `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: 2000\r\n\r\n${'z'.repeat(2000)}`,
};

const logged: Record<string, unknown>[] = [];
const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
let fx: ProxyFixture;
let raw: Server;

beforeAll(async () => {
  raw = createNetServer((socket: Socket) => {
    let head = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const path = head.split(' ')[1]!.split('?')[0]!;
      socket.end(Buffer.from(ANSWERS[path] ?? 'HTTP/1.1 500 Unknown\r\nContent-Length: 0\r\n\r\n', 'latin1'));
    });
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
  fx = await startProxyFixture({ context: { logger, clock } });
  await fx.gw.publishBackend(
    echoBackend(fx.echo, { servers: [{ host: '127.0.0.1', port: (raw.address() as AddressInfo).port }], url_matches: [{ frontend_prefix: '/bad/', backend_prefix: '/' }] }),
  );
});
afterAll(async () => {
  raw.close();
  await fx.close();
});
// Each failure is logged: the log tells of a server's failures at most once in 10 s.
beforeEach(() => clock.advance(10_000));

/** The raw answer to GET `path`, on a connection the gateway closes after it. */
function get(path: string): Promise<string> {
  return sendRaw(fx.gw.url, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${fx.apiKey}\r\nConnection: close\r\n\r\n`);
}

function requestIdOf(answer: string): string {
  return /\r\nX-Api-Umbrella-Request-Id: ([^\r]+)\r\n/i.exec(answer)![1]!;
}

/** Entries are recorded when the response closes, which may come a moment after the client saw the close. */
async function entryFor(requestId: string): Promise<AnalyticsEntry> {
  let entry: AnalyticsEntry | undefined;
  await expect
    .poll(
      () => {
        fx.gw.context.analytics.flush();
        entry = fx.gw.context.db.prepare('SELECT * FROM analytics_logs WHERE request_id = ?').get(requestId) as AnalyticsEntry | undefined;
        return entry;
      },
      { timeout: 2_000, interval: 10 },
    )
    .toBeDefined();
  return entry!;
}

const failures = () => logged.filter((line) => line.msg === 'upstream request failed');

describe('a reason phrase Node will not write', () => {
  it("passes the upstream's answer on with the status's own reason phrase instead of a control character, and logs no failure", async () => {
    const before = failures().length;
    const answer = await get('/bad/ctl-reason');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.endsWith('\r\n\r\nok')).toBe(true);
    expect((await entryFor(requestIdOf(answer))).response_status).toBe(200);
    expect(failures().length).toBe(before);
  });

  it('replaces one that is not Latin-1 text as undici reads it', async () => {
    const answer = await get('/bad/latin1-reason');
    expect(answer).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(answer.endsWith('\r\n\r\nnope')).toBe(true);
  });
});

describe('an upstream that fails after its headers, before any body', () => {
  it('gets the client the status line and headers the gateway sent, then a close; analytics and the log say so', async () => {
    const answer = await get('/bad/close-after-headers');
    expect(statusOf(answer)).toBe(200);
    expect(answer).toMatch(/\r\nContent-Length: 50\r\n/i);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe('');
    const entry = await entryFor(requestIdOf(answer));
    expect([entry.response_status, entry.response_size]).toEqual([200, Buffer.byteLength(answer, 'latin1')]);
    expect(failures().at(-1)).toMatchObject({ answered: 'cut short' });
  });

  it('does the same for a gzipped body that will not unzip for a client that takes no gzip, and logs it', async () => {
    const answer = await get('/bad/bad-gzip');
    expect(statusOf(answer)).toBe(200);
    expect((await entryFor(requestIdOf(answer))).response_status).toBe(200);
    expect(failures().at(-1)).toMatchObject({ error: 'Z_DATA_ERROR', answered: 'cut short' });
  });
});
