// The data plane's entry: holds the live routing table (swapped whole at
// every publish) and turns each catch-all request into an exchange, or
// into the homepage, a 404 or a 400 when no backend can take it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RESERVED_PREFIXES } from '../api-backends/model.js';
import type { Config } from '../config/schema.js';
import type { AppContext } from '../context.js';
import type { OpenWork } from '../lib/open-work.js';
import { CookieStripper } from './cookie-stripping.js';
import { Exchange, type ClientRequest, type ExchangeDeps } from './exchange.js';
import type { ProxyTrust } from './proxy-trust.js';
import { VerifiedKeyCache } from './key-cache.js';
import { namesOneHost, parseRequestTarget, targetOrRoot, type RequestTarget } from './request-url.js';
import { errorRequestOf, refuseRequest, writeError } from './respond.js';
import { compileRoutes, type GatewayRoute, type GatewayTable } from './routes.js';
import { SendPauseWatch } from './send-pauses.js';
import { backendDefaultsOf } from './settings.js';
import { bodyAfterHead, OpenUpgrades, responseOnUpgrade } from './upgrade-tunnel.js';
import { UpstreamFailureLog } from './upstream-failures.js';
import { UpstreamPools } from './upstreams.js';

export type PageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | unknown;

export class Gateway {
  private table!: GatewayTable;
  private readonly pools: UpstreamPools;
  private readonly deps: ExchangeDeps;
  private readonly trust: ProxyTrust;
  private closing = false;
  private readonly upgrades = new OpenUpgrades();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly context: AppContext,
    private readonly homepage: PageHandler,
    work: OpenWork,
  ) {
    const { config } = context;
    this.pools = new UpstreamPools(config.proxy);
    this.trust = context.proxyTrust;
    this.deps = {
      config,
      keyIndex: new VerifiedKeyCache(context.keyIndex),
      rateLimiter: context.rateLimiter,
      analytics: context.analytics,
      clock: context.clock,
      cache: context.responseCache,
      cookieStripper: CookieStripper.compile(config.strip_cookies),
      responseCookieStripper: CookieStripper.compile(config.strip_response_cookies),
      upstreamFailures: new UpstreamFailureLog(context.logger, context.clock),
      work,
      sendPauses: new SendPauseWatch(config.proxy.client_send_timeout_ms),
    };
    // Requests already matched keep the table they started with; new ones see the new table.
    this.unsubscribe = context.publisher.subscribe((published) => {
      this.table = compileRoutes(published, backendDefaultsOf(config.default_api_backend_settings), this.pools, config.default_host, config.admin.hosts);
    });
  }

  handle(request: FastifyRequest, reply: FastifyReply): unknown {
    const raw = request.raw;
    const target = parseRequestTarget(raw.url!);
    if (target === null) return this.refuse(request, reply, 'BAD_REQUEST', { path: '/', query: '' });
    // As nginx in front of API Umbrella: TRACE would echo a request's headers (cookies, keys) back to a page's script.
    if (raw.method === 'TRACE') return this.refuse(request, reply, 'METHOD_NOT_ALLOWED', target);
    const client = this.trust.clientOf(raw);
    if (!namesOneHost(raw, client.host)) return this.refuse(request, reply, 'BAD_REQUEST', target);
    const route = this.table.match(client.host, target.path);
    if (route === null) {
      if (target.path === '/' && (raw.method === 'GET' || raw.method === 'HEAD')) return this.homepage(request, reply);
      return this.refuse(request, reply, 'NOT_FOUND', target);
    }
    reply.hijack();
    this.proxy({ raw, res: reply.raw, target, ...client }, route);
    return undefined;
  }

  /**
   * Proxies a request that only the catch-all route could take, before Fastify
   * builds its request and reply (about a tenth of the proxy's CPU per
   * request). false: let Fastify route it — the gateway's own pages (all under
   * the reserved prefixes, which no backend may claim), "/", requests the
   * table does not match, percent-encoded paths (Fastify's router rejects
   * broken escapes) and everything while the server closes.
   */
  handleDirect(raw: IncomingMessage, res: ServerResponse): boolean {
    if (this.closing) return false;
    const target = parseRequestTarget(raw.url!);
    if (target === null || target.path === '/' || target.path.includes('%') || isReserved(target.path) || raw.method === 'TRACE') return false;
    const client = this.trust.clientOf(raw);
    if (!namesOneHost(raw, client.host)) return false;
    const route = this.table.match(client.host, target.path);
    if (route === null) return false;
    this.proxy({ raw, res, target, ...client }, route);
    return true;
  }

  /**
   * An Upgrade request (a WebSocket handshake): matched and checked like any
   * request; refusals are the usual error responses, after which the
   * connection closes. Nothing here goes through Fastify.
   */
  upgrade(raw: IncomingMessage, socket: Duplex, head: Buffer): void {
    // Node's HTTP server let go of the connection: an error on it must not reach the process.
    socket.on('error', () => socket.destroy());
    if (this.closing) {
      socket.destroy();
      return;
    }
    this.upgrades.add(socket);
    const res = responseOnUpgrade(raw, socket);
    const client = this.trust.clientOf(raw);
    const parsed = parseRequestTarget(raw.url!);
    const target = parsed ?? { path: '/', query: '' };
    const refuse = (code: 'BAD_REQUEST' | 'NOT_FOUND') => {
      writeError(res, this.context.config, errorRequestOf(raw, target, client.protocol, client.host), code);
    };
    if (parsed === null || !namesOneHost(raw, client.host)) return refuse('BAD_REQUEST');
    const route = this.table.match(client.host, target.path);
    if (route === null) return refuse('NOT_FOUND');
    const request = { raw, res, target, ...client };
    const { headers } = raw;
    const length = Number(headers['content-length'] ?? 0);
    if (headers['transfer-encoding'] !== undefined || !Number.isSafeInteger(length) || length < 0) {
      // A chunked body would have to be decoded here; no client sends one with an upgrade.
      refuse('BAD_REQUEST');
    } else if (length > 0) {
      this.proxy({ ...request, body: bodyAfterHead(head, socket, length) }, route);
    } else if (isWebSocket(headers.upgrade)) {
      this.proxy({ ...request, upgrade: { socket, head, protocol: 'websocket' } }, route);
    } else {
      // Another protocol (h2c, …) is not switched to, as nginx without an upgrade map: a tunnel would carry requests no key, role or limit was checked for.
      this.proxy(request, route);
    }
  }

  /** From now on every request goes through Fastify, which answers 503 while closing; open upgraded connections are closed. */
  beginClosing(): void {
    this.closing = true;
    this.upgrades.closeAll();
  }

  /** Nothing thrown here may reach Node's request listener: that would end the process. */
  private proxy(client: ClientRequest, route: GatewayRoute): void {
    try {
      new Exchange(this.deps, client, route).run();
    } catch (error) {
      this.context.logger.error({ err: error }, 'proxy request failed');
      if (client.res.headersSent) client.res.destroy();
      else writeError(client.res, this.context.config, errorRequestOf(client.raw, client.target, client.protocol, client.host), 'INTERNAL_SERVER_ERROR');
    }
  }

  /** Requests no backend takes: not logged as analytics, answered in the client's format. */
  private refuse(request: FastifyRequest, reply: FastifyReply, code: RefusalCode, target: RequestTarget): undefined {
    refuseRequest(this.context.config, request, reply, code, target);
    return undefined;
  }

  close(): Promise<void> {
    this.unsubscribe();
    this.deps.sendPauses.stop();
    return this.pools.close();
  }
}

/** Why the gateway answers a request itself. */
type RefusalCode = 'BAD_REQUEST' | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED';


/**
 * For Fastify's frameworkErrors: a path its router cannot decode (a broken
 * escape such as "/api/%zz"). Fastify's own answer would repeat the URL, and
 * with it any api_key in the query.
 */
export function refuseMalformedUrl(config: Config, request: FastifyRequest, reply: FastifyReply): void {
  refuseRequest(config, request, reply, 'BAD_REQUEST', targetOrRoot(request.raw.url ?? '/'));
}

/** With a request id of its own, as every answer of API Umbrella has one a client can quote. */
/** Upgrade: websocket, the one protocol the gateway switches to. */
function isWebSocket(upgrade: string | undefined): boolean {
  return upgrade !== undefined && upgrade.trim().toLowerCase() === 'websocket';
}

function isReserved(path: string): boolean {
  for (const prefix of RESERVED_PREFIXES) {
    if (path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 0x2f /* / */)) return true;
  }
  return false;
}
