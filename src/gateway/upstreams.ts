// Keep-alive connection pools to upstream servers, one per origin, shared by
// every backend that names it and kept across publishes; and the choice of
// server per request (round robin, least connections, IP hash), passing over
// a server that could not be reached for FAIL_TIMEOUT_MS, as nginx's
// upstreams do (max_fails=1 fail_timeout=10s) in API Umbrella. A server named
// by a host name whose addresses changed gets a new pool (upstream-names.ts).
import { isIP } from 'node:net';
import { Pool } from 'undici';
import type { ApiBackend, BalanceAlgorithm } from '../api-backends/model.js';
import type { Config } from '../config/schema.js';
import { newFailureCount, type FailureCount } from './upstream-failures.js';
import { UpstreamQueueWatch } from './upstream-queue.js';
import { UpstreamNames, type LookupAll } from './upstream-names.js';
import { upstreamTlsOptions, type UpstreamTlsOptions } from './upstream-tls.js';

/** Dropped origins are closed this long after the publish that dropped them, so requests still on the old table finish. */
const RETIRE_AFTER_MS = 60_000;

/** How long a server that could not be reached is passed over while its group has others. */
export const FAIL_TIMEOUT_MS = 10_000;

export interface UpstreamServer {
  readonly origin: string;
  /** Replaced when the server's host name moves; requests read it when they dispatch. */
  pool: Pool;
  /** Requests dispatched and not yet complete, for least_conn. */
  inFlight: number;
  /** performance.now() until which the server is passed over (0: never failed). */
  failedUntil: number;
  /** Its failures the log has not told of yet (upstream-failures.ts). */
  readonly failures: FailureCount;
  /** Watches requests that may wait for one of its connections (shared by every server of the pools). */
  readonly queue: UpstreamQueueWatch;
}

export class UpstreamPools {
  private readonly servers = new Map<string, UpstreamServer>();
  private readonly retiring = new Map<string, NodeJS.Timeout>();
  private readonly names: UpstreamNames;
  private readonly tls: UpstreamTlsOptions;
  private readonly nameRefresh: NodeJS.Timeout;
  /** A request may wait for a connection as long as a response may take (upstream-queue.ts). */
  private readonly queue: UpstreamQueueWatch;

  /** `resolve`: the system's resolver unless a test names its own. */
  constructor(
    private readonly proxy: Config['proxy'],
    resolve?: LookupAll,
  ) {
    this.names = new UpstreamNames(resolve);
    this.tls = upstreamTlsOptions(proxy);
    this.nameRefresh = setInterval(() => void this.followMovedNames(), proxy.upstream_dns_refresh_ms).unref();
    this.queue = new UpstreamQueueWatch(proxy.response_timeout_ms);
  }

  server(origin: string): UpstreamServer {
    const timer = this.retiring.get(origin);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.retiring.delete(origin);
    }
    let server = this.servers.get(origin);
    if (server === undefined) {
      server = { origin, pool: this.createPool(origin), inFlight: 0, failedUntil: 0, failures: newFailureCount(), queue: this.queue };
      this.servers.set(origin, server);
    }
    return server;
  }

  /** After a publish: origins no longer named by any backend are closed once their requests are done. */
  retainOnly(origins: ReadonlySet<string>): void {
    for (const origin of this.servers.keys()) {
      if (origins.has(origin) || this.retiring.has(origin)) continue;
      const timer = setTimeout(() => this.retire(origin), RETIRE_AFTER_MS);
      timer.unref();
      this.retiring.set(origin, timer);
    }
  }

  /**
   * Ends every upstream connection. The app closes its pools once it has
   * nothing in flight or its drain time (proxy.shutdown_timeout_ms) has run
   * out: what is still under way then is cut off rather than waited for,
   * since a request body that stopped arriving would be waited for forever.
   */
  async close(): Promise<void> {
    clearInterval(this.nameRefresh);
    this.queue.stop();
    for (const timer of this.retiring.values()) clearTimeout(timer);
    this.retiring.clear();
    const pools = [...this.servers.values()].map((server) => server.pool.destroy());
    this.servers.clear();
    await Promise.allSettled(pools);
  }

  /**
   * Servers whose host name now has other addresses get a new pool: new
   * requests connect to the new addresses, and the old pool closes once its
   * requests are done.
   */
  private async followMovedNames(): Promise<void> {
    const moved = new Set(await this.names.moved());
    if (moved.size === 0) return;
    for (const server of this.servers.values()) {
      if (!moved.has(new URL(server.origin).hostname)) continue;
      const old = server.pool;
      server.pool = this.createPool(server.origin);
      void old.close();
    }
  }

  private retire(origin: string): void {
    const server = this.servers.get(origin);
    this.retiring.delete(origin);
    this.servers.delete(origin);
    void server?.pool.close();
    const hostname = new URL(origin).hostname;
    if (![...this.servers.keys()].some((other) => new URL(other).hostname === hostname)) this.names.forget(hostname);
  }

  private createPool(origin: string): Pool {
    const { proxy } = this;
    return new Pool(origin, {
      connections: proxy.connections_per_server,
      pipelining: 1,
      connectTimeout: proxy.connect_timeout_ms,
      headersTimeout: proxy.response_timeout_ms,
      bodyTimeout: proxy.body_timeout_ms,
      keepAliveTimeout: proxy.keep_alive_timeout_ms,
      keepAliveMaxTimeout: Math.max(proxy.keep_alive_timeout_ms, 600_000),
      // An IP needs no lookup; a name takes its addresses in turn. Certificates are checked as upstream-tls.ts says, named by the Host sent.
      connect: isIP(new URL(origin).hostname.replace(/^\[|\]$/g, '')) === 0 ? { ...this.tls, lookup: this.names.lookup } : { ...this.tls },
    });
  }
}

/** A backend's servers and the rule that picks one. */
export class UpstreamGroup {
  private next = 0;

  private constructor(
    private readonly servers: readonly UpstreamServer[],
    private readonly algorithm: BalanceAlgorithm,
  ) {}

  static forBackend(api: Pick<ApiBackend, 'backend_protocol' | 'balance_algorithm' | 'servers'>, pools: UpstreamPools): UpstreamGroup {
    return new UpstreamGroup(
      api.servers.map((server) => pools.server(originOf(api.backend_protocol, server.host, server.port))),
      api.balance_algorithm,
    );
  }

  /** Whether another server can take a request this one could not deliver. */
  get canFailOver(): boolean {
    return this.servers.length > 1;
  }

  /**
   * The server for a request at `now` (performance.now()). Servers that
   * failed within FAIL_TIMEOUT_MS are left out of the choice, so their share
   * spreads over the others, unless every one has; with one server there is
   * nothing to choose.
   */
  pick(clientIp: string, now: number): UpstreamServer {
    const { servers } = this;
    if (servers.length === 1) return servers[0]!;
    switch (this.algorithm) {
      case 'round_robin':
        return this.nextInTurn(now);
      case 'least_conn':
        this.next = (this.next + 1) % servers.length;
        return leastBusy(servers, this.next, now);
      case 'ip_hash':
        return byHash(servers, hashOf(clientIp), now);
    }
  }

  /** Another server for a request `tried` could not deliver, or null when none is left. */
  pickAgain(tried: readonly UpstreamServer[], now: number): UpstreamServer | null {
    const untried = this.servers.filter((server) => !tried.includes(server));
    return untried.find((server) => server.failedUntil <= now) ?? untried[0] ?? null;
  }

  /** `server` could not be reached: it is passed over for a while, if the group has others. */
  markFailed(server: UpstreamServer, now: number): void {
    if (this.canFailOver) server.failedUntil = now + FAIL_TIMEOUT_MS;
  }

  /** Round robin over the servers that have not failed lately (over all of them when every one has). */
  private nextInTurn(now: number): UpstreamServer {
    const { servers } = this;
    for (let offset = 1; offset <= servers.length; offset++) {
      const index = (this.next + offset) % servers.length;
      if (servers[index]!.failedUntil <= now) {
        this.next = index;
        return servers[index]!;
      }
    }
    this.next = (this.next + 1) % servers.length;
    return servers[this.next]!;
  }
}

export function originOf(protocol: string, host: string, port: number): string {
  return `${protocol}://${host}:${port}`;
}

/** Fewest in-flight requests among the servers that have not failed lately; ties rotate, so an idle group is still spread. */
function leastBusy(servers: readonly UpstreamServer[], start: number, now: number): UpstreamServer {
  let best: UpstreamServer | null = null;
  for (let offset = 0; offset < servers.length; offset++) {
    const candidate = servers[(start + offset) % servers.length]!;
    if (candidate.failedUntil <= now && (best === null || candidate.inFlight < best.inFlight)) best = candidate;
  }
  return best ?? servers[start]!;
}

/** The client's own server; while it is failed, one of the others by the same hash, so its clients spread. */
function byHash(servers: readonly UpstreamServer[], hash: number, now: number): UpstreamServer {
  const home = servers[hash % servers.length]!;
  if (home.failedUntil <= now) return home;
  const available = servers.filter((server) => server.failedUntil <= now);
  return available.length === 0 ? home : available[hash % available.length]!;
}

/** FNV-1a over the address: the same client keeps its server while the list stays the same. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
