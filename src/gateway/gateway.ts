// The data plane's entry: holds the live routing table (swapped whole at
// every publish) and turns each catch-all request into an exchange, or
// into the homepage, a 404 or a 400 when no backend can take it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { Exchange, type ExchangeDeps } from './exchange.js';
import { VerifiedKeyCache } from './key-cache.js';
import { parseRequestTarget, type RequestTarget } from './request-url.js';
import { writeError } from './respond.js';
import { compileRoutes, type GatewayTable } from './routes.js';
import { UpstreamPools } from './upstreams.js';

export type PageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | unknown;

export class Gateway {
  private table!: GatewayTable;
  private readonly pools: UpstreamPools;
  private readonly deps: ExchangeDeps;

  constructor(
    private readonly context: AppContext,
    private readonly homepage: PageHandler,
  ) {
    const { config } = context;
    this.pools = new UpstreamPools(config.proxy);
    this.deps = { config, keyIndex: new VerifiedKeyCache(context.keyIndex, context.users, context.clock), rateLimiter: context.rateLimiter, analytics: context.analytics, clock: context.clock };
    // Requests already matched keep the table they started with; new ones see the new table.
    context.publisher.subscribe((published) => {
      this.table = compileRoutes(published, config.default_api_backend_settings.rate_limits, this.pools);
    });
  }

  handle(request: FastifyRequest, reply: FastifyReply): unknown {
    const raw = request.raw;
    const target = parseRequestTarget(raw.url!);
    if (target === null) return this.refuse(request, reply, 'BAD_REQUEST', { path: '/', query: '' });
    const host = request.host;
    const route = this.table.match(host, target.path);
    if (route === null) {
      if (target.path === '/' && (raw.method === 'GET' || raw.method === 'HEAD')) return this.homepage(request, reply);
      return this.refuse(request, reply, 'NOT_FOUND', target);
    }
    reply.hijack();
    // proxy-addr only matters when a proxy may have named the client; otherwise the peer is the client.
    const ip = raw.headers['x-forwarded-for'] === undefined ? raw.socket.remoteAddress! : request.ip;
    const exchange = new Exchange(this.deps, { raw, res: reply.raw, target, protocol: request.protocol, host, ip }, route);
    try {
      exchange.run();
    } catch (error) {
      this.context.logger.error({ err: error }, 'proxy request failed');
      if (!reply.raw.headersSent) exchange.fail('INTERNAL_SERVER_ERROR');
    }
    return undefined;
  }

  /** Requests no backend takes: not logged as analytics, answered in the client's format. */
  private refuse(request: FastifyRequest, reply: FastifyReply, code: 'BAD_REQUEST' | 'NOT_FOUND', target: RequestTarget): undefined {
    reply.hijack();
    const { raw } = request;
    writeError(reply.raw, this.context.config, {
      method: raw.method!,
      headers: raw.headers,
      url: raw.url!,
      path: target.path,
      query: target.query,
      protocol: request.protocol,
      host: request.host,
      requestId: null,
    }, code);
    return undefined;
  }

  close(): Promise<void> {
    return this.pools.close();
  }
}
