// Upstream host names with several addresses, or whose addresses change: real
// servers on three loopback addresses, a resolver that answers as the test
// says (the system's cannot be told to move a name).
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LookupAll } from '../../src/gateway/upstream-names.js';
import { UpstreamPools } from '../../src/gateway/upstreams.js';
import { testConfig } from '../helpers/config.js';

const ADDRESSES = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
let servers: Server[] = [];
let port: number;

beforeAll(async () => {
  // One port on three addresses: each answers with the address it listens on.
  for (const address of ADDRESSES) {
    const server = createServer((_request, response) => response.end(address));
    await new Promise<void>((resolve) => server.listen(port ?? 0, address, resolve));
    port = (server.address() as AddressInfo).port;
    servers.push(server);
  }
});
afterAll(async () => {
  for (const server of servers) server.close();
  servers = [];
});

/** A resolver for upstream.test whose answer (or failure) the test sets. */
function fakeDns(initial: string[]) {
  const dns = { answer: initial as string[] | 'fail', lookups: 0 };
  const resolve: LookupAll = (_hostname, _options, callback) => {
    dns.lookups++;
    if (dns.answer === 'fail') return callback(Object.assign(new Error('getaddrinfo EAI_AGAIN upstream.test'), { code: 'EAI_AGAIN' }), []);
    callback(null, dns.answer.map((address): LookupAddress => ({ address, family: 4 })));
  };
  return { dns, resolve };
}

let pools: UpstreamPools | null = null;
afterEach(async () => {
  await pools?.close();
  pools = null;
});

function poolsWith(resolve: LookupAll, refreshMs = 30_000): UpstreamPools {
  pools = new UpstreamPools(testConfig({ proxy: { upstream_dns_refresh_ms: refreshMs } }).proxy, resolve);
  return pools;
}

async function answerOf(upstreams: UpstreamPools): Promise<string> {
  const response = await upstreams.server(`http://upstream.test:${port}`).pool.request({ path: '/', method: 'GET' });
  return response.body.text();
}

/** Answers of requests one after another: they keep reusing the connections the first ones opened. */
async function answersInTurn(upstreams: UpstreamPools, count: number): Promise<string[]> {
  const answers: string[] = [];
  for (let index = 0; index < count; index++) answers.push(await answerOf(upstreams));
  return answers;
}

describe('upstream host names', () => {
  it('spread the connections of a name with several addresses over all of them', async () => {
    const upstreams = poolsWith(fakeDns(ADDRESSES).resolve);
    const answers = await Promise.all(Array.from({ length: 30 }, () => answerOf(upstreams)));
    expect(new Set(answers)).toEqual(new Set(ADDRESSES));
  });

  it('stay on kept-alive connections after a move until the refresh looks', async () => {
    const { dns, resolve } = fakeDns(['127.0.0.1']);
    const upstreams = poolsWith(resolve);
    await answersInTurn(upstreams, 5);
    dns.answer = ['127.0.0.2'];
    expect(new Set(await answersInTurn(upstreams, 20))).toEqual(new Set(['127.0.0.1']));
  });

  it('follow a name whose address changed while kept-alive connections stayed busy, within the refresh time', async () => {
    const { dns, resolve } = fakeDns(['127.0.0.1']);
    const upstreams = poolsWith(resolve, 100);
    expect(new Set(await answersInTurn(upstreams, 5))).toEqual(new Set(['127.0.0.1']));
    dns.answer = ['127.0.0.2'];
    const deadline = Date.now() + 5_000;
    let answer = await answerOf(upstreams);
    while (answer !== '127.0.0.2' && Date.now() < deadline) answer = await answerOf(upstreams);
    expect(answer).toBe('127.0.0.2');
  });

  it('look a name up once at a time, however long the resolver takes', async () => {
    const { resolve } = fakeDns(['127.0.0.1']);
    let hang = false;
    let hanging = 0;
    // Once the connections are made, every look (the refresh's) never ends.
    const slow: LookupAll = (hostname, options, callback) => (hang ? void hanging++ : resolve(hostname, options, callback));
    const upstreams = poolsWith(slow, 100);
    await answersInTurn(upstreams, 2);
    hang = true;
    await vi.waitFor(() => expect(hanging).toBe(1), { timeout: 5_000 });
    // Three more refreshes' time: none of them looks again while the first look hangs.
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(hanging).toBe(1);
  });

  it('keep their connections while the resolver fails, and a reordered answer is no move', async () => {
    const { dns, resolve } = fakeDns(['127.0.0.1', '127.0.0.3']);
    const upstreams = poolsWith(resolve, 100);
    const server = upstreams.server(`http://upstream.test:${port}`);
    await answersInTurn(upstreams, 5);
    const pool = server.pool;
    dns.answer = 'fail';
    const failing = dns.lookups;
    await vi.waitFor(() => expect(dns.lookups).toBeGreaterThanOrEqual(failing + 3), { timeout: 5_000 });
    expect(server.pool).toBe(pool);
    expect(await answerOf(upstreams)).toMatch(/^127\.0\.0\.[13]$/);
    dns.answer = ['127.0.0.3', '127.0.0.1'];
    const reordered = dns.lookups;
    await vi.waitFor(() => expect(dns.lookups).toBeGreaterThanOrEqual(reordered + 3), { timeout: 5_000 });
    expect(server.pool).toBe(pool);
  });
});
