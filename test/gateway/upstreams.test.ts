// Choosing a backend's server when one could not be reached.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiBackend } from '../../src/api-backends/model.js';
import { isConnectionLost, isUnreachable } from '../../src/gateway/forward.js';
import { FAIL_TIMEOUT_MS, UpstreamGroup, UpstreamPools } from '../../src/gateway/upstreams.js';
import { testConfig } from '../helpers/config.js';

const pools = new UpstreamPools(testConfig().proxy);
afterAll(() => pools.close());

const group = (ports: number[], balance_algorithm: ApiBackend['balance_algorithm'] = 'round_robin') =>
  UpstreamGroup.forBackend({ backend_protocol: 'http', balance_algorithm, servers: ports.map((port) => ({ id: randomUUID(), host: '127.0.0.1', port })) }, pools);
const portOf = (server: { origin: string }) => Number(server.origin.split(':').pop());

describe('UpstreamGroup', () => {
  it('passes over a failed server for FAIL_TIMEOUT_MS, then chooses it again', () => {
    const servers = group([1001, 1002, 1003]);
    const failed = servers.pick('192.0.2.1', 0);
    servers.markFailed(failed, 1_000);
    const during = Array.from({ length: 6 }, () => portOf(servers.pick('192.0.2.1', 1_000 + FAIL_TIMEOUT_MS - 1)));
    expect(during).not.toContain(portOf(failed));
    const after = Array.from({ length: 6 }, () => portOf(servers.pick('192.0.2.1', 1_000 + FAIL_TIMEOUT_MS)));
    expect(after).toContain(portOf(failed));
  });

  it("spreads a failed server's share over the others: round robin and least connections", () => {
    const turns = group([5001, 5002, 5003]);
    const failed = turns.pick('x', 0);
    turns.markFailed(failed, 0);
    const counts = new Map<number, number>();
    for (let index = 0; index < 30; index++) {
      const port = portOf(turns.pick('x', 1));
      counts.set(port, (counts.get(port) ?? 0) + 1);
    }
    expect([...counts.values()]).toEqual([15, 15]);

    const busy = group([6001, 6002, 6003], 'least_conn');
    const down = busy.pick('x', 0);
    busy.markFailed(down, 0);
    const held = Array.from({ length: 8 }, () => {
      const server = busy.pick('x', 1);
      server.inFlight++;
      return server;
    });
    expect(held).not.toContain(down);
    expect(new Set(held.map(portOf)).size).toBe(2);
    expect(held.filter((server) => server === held[0]).length).toBe(4);
    for (const server of held) server.inFlight--;
  });

  it('keeps an IP on its server, moving it only while that server is failed', () => {
    const servers = group([2001, 2002, 2003], 'ip_hash');
    const home = servers.pick('198.51.100.7', 0);
    servers.markFailed(home, 0);
    expect(servers.pick('198.51.100.7', 1)).not.toBe(home);
    expect(servers.pick('198.51.100.7', FAIL_TIMEOUT_MS)).toBe(home);
  });

  it('chooses a failed server when every server has failed, and offers each server once to a request', () => {
    const servers = group([3001, 3002]);
    const [a, b] = [servers.pick('x', 0), servers.pick('x', 0)];
    servers.markFailed(a, 0);
    servers.markFailed(b, 0);
    expect([a, b]).toContain(servers.pick('x', 1));
    expect(servers.pickAgain([a], 1)).toBe(b);
    expect(servers.pickAgain([a, b], 1)).toBeNull();
  });

  it('never sets aside the only server of a group', () => {
    const single = group([4001]);
    const only = single.pick('x', 0);
    single.markFailed(only, 0);
    expect(only.failedUntil).toBe(0);
    expect(single.canFailOver).toBe(false);
  });
});

describe('isUnreachable', () => {
  it('reads the addresses of a host that has several, not only the first', () => {
    const refused = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    const reset = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
    expect(isUnreachable(Object.assign(new AggregateError([reset, refused]), { code: 'ECONNRESET' }))).toBe(true);
    expect(isUnreachable(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }))).toBe(true);
    expect(isUnreachable(reset)).toBe(false);
  });
});

describe('isConnectionLost', () => {
  it('takes a connection closed, reset or broken while the request was written, and nothing else', () => {
    const withCode = (code: string) => Object.assign(new Error(code), { code });
    expect(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'].map((code) => isConnectionLost(withCode(code)))).toEqual([true, true, true]);
    expect(['UND_ERR_HEADERS_TIMEOUT', 'ECONNREFUSED', 'UND_ERR_ABORTED'].map((code) => isConnectionLost(withCode(code)))).toEqual([false, false, false]);
    expect(isConnectionLost(new Error('no code'))).toBe(false);
  });
});
