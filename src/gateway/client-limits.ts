// API Umbrella's router.global_rate_limits (its nginx's limit_conn and
// limit_req, by client IP): before anything else reads a request, a client
// with too many requests in flight, or sending faster than ip_rate a second
// beyond a burst of ip_burst, gets 429 OVER_RATE_LIMIT. Off unless set, as in
// API Umbrella. They guard the gateway and its backends from one client's
// flood; the backends' own rate limits (per key and IP, by window) are the
// ones developers see in their headers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { Config } from '../config/schema.js';
import { whenResponseEnds } from '../lib/response-end.js';
import { targetOrRoot } from './request-url.js';
import type { ProxyTrust } from './proxy-trust.js';
import { errorRequestOf, writeError } from './respond.js';
import { responseOnUpgrade } from './upgrade-tunnel.js';

export type ClientLimitsConfig = Config['global_rate_limits'];

/** A client's allowance under ip_rate: nginx's leaky bucket, as tokens. */
interface Allowance {
  tokens: number;
  /** performance.now() when `tokens` was counted. */
  at: number;
}

/** How often clients whose allowance is whole again are forgotten. */
const FORGET_EVERY_MS = 10_000;

/** What each client IP has in flight and left of its allowance: the process's, kept across reloads as API rate limits are. */
export class ClientLimitCounts {
  readonly inFlight = new Map<string, number>();
  readonly allowances = new Map<string, Allowance>();
}

export class ClientLimits {
  private readonly inFlight: Map<string, number>;
  private readonly allowances: Map<string, Allowance>;
  private readonly capacity: number;
  private readonly timer: NodeJS.Timeout | null;

  private constructor(
    private readonly limits: ClientLimitsConfig,
    private readonly trust: ProxyTrust,
    private readonly config: Config,
    counts: ClientLimitCounts,
  ) {
    this.inFlight = counts.inFlight;
    this.allowances = counts.allowances;
    // nginx lets the request at the rate through, and ip_burst more at once.
    this.capacity = limits.ip_burst + 1;
    this.timer = limits.ip_rate === null ? null : setInterval(() => this.forgetWhole(), FORGET_EVERY_MS);
    this.timer?.unref();
  }

  /** null when neither limit is set: requests then pay one null check. */
  static compile(config: Config, trust: ProxyTrust, counts: ClientLimitCounts): ClientLimits | null {
    const limits = config.global_rate_limits;
    return limits.ip_connections === null && limits.ip_rate === null ? null : new ClientLimits(limits, trust, config, counts);
  }

  /** Answers 429 and returns false for a request over a limit; otherwise counts it (until its response is over) and returns true. */
  admit(request: IncomingMessage, response: ServerResponse): boolean {
    const client = this.trust.clientOf(request);
    if (this.withinRate(client.ip) && this.withinConnections(client.ip, (release) => whenResponseEnds(response, request.socket, release))) return true;
    this.refuse(request, response, client);
    return false;
  }

  /** The same for an Upgrade (a WebSocket handshake), whose connection counts as one in flight until it closes, as nginx's limit_conn counts it. */
  admitUpgrade(request: IncomingMessage, socket: Duplex): boolean {
    const client = this.trust.clientOf(request);
    if (this.withinRate(client.ip) && this.withinConnections(client.ip, (release) => socket.once('close', release))) return true;
    // Node's HTTP server let go of the connection: an error on it must not reach the process.
    socket.on('error', () => socket.destroy());
    this.refuse(request, responseOnUpgrade(request, socket), client);
    return false;
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
  }

  private withinRate(ip: string): boolean {
    const rate = this.limits.ip_rate;
    if (rate === null) return true;
    const now = performance.now();
    const allowance = this.allowances.get(ip);
    if (allowance === undefined) {
      this.allowances.set(ip, { tokens: this.capacity - 1, at: now });
      return true;
    }
    allowance.tokens = Math.min(this.capacity, allowance.tokens + ((now - allowance.at) * rate) / 1000);
    allowance.at = now;
    if (allowance.tokens < 1) return false;
    allowance.tokens -= 1;
    return true;
  }

  private refuse(request: IncomingMessage, response: ServerResponse, client: { protocol: string; host: string }): void {
    const target = targetOrRoot(request.url!);
    writeError(response, this.config, errorRequestOf(request, target, client.protocol, client.host), 'OVER_RATE_LIMIT');
  }

  /** Counts one more in flight for `ip` unless it has ip_connections already; `untilOver` hears when to count it out. */
  private withinConnections(ip: string, untilOver: (release: () => void) => void): boolean {
    const most = this.limits.ip_connections;
    if (most === null) return true;
    const count = this.inFlight.get(ip) ?? 0;
    if (count >= most) return false;
    this.inFlight.set(ip, count + 1);
    untilOver(() => {
      const left = this.inFlight.get(ip)! - 1;
      if (left === 0) this.inFlight.delete(ip);
      else this.inFlight.set(ip, left);
    });
    return true;
  }

  /** Clients whose allowance has filled up again are as good as new: they are not kept. */
  private forgetWhole(): void {
    const now = performance.now();
    const rate = this.limits.ip_rate!;
    for (const [ip, allowance] of this.allowances) {
      if (allowance.tokens + ((now - allowance.at) * rate) / 1000 >= this.capacity) this.allowances.delete(ip);
    }
  }
}
