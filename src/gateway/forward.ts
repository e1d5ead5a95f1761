// The upstream leg of an exchange: the rewritten request goes out on the
// server's keep-alive pool, and the response streams back chunk by chunk
// with backpressure both ways. Nothing is buffered.
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { Gunzip, Gzip } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { BODY_HEADER_NAMES, BodyHeaders, bodyCoder, chooseCoding, recode } from './compression.js';
import type { ErrorCode } from './errors.js';
import type { Exchange } from './exchange.js';
import { connectionListed, HOP_BY_HOP, REQUEST_ID_HEADER } from './headers.js';
import { rewriteLocation } from './location.js';
import { upstreamQuery } from './request-url.js';
import { applyResponseHeaders } from './response-header-settings.js';
import { rateLimitHeaders } from './respond.js';
import { joinConnections, switchingProtocolsHead } from './upgrade-tunnel.js';
import type { UpstreamServer } from './upstreams.js';

/** Noted afresh for each response; its headers are read synchronously, one response at a time. */
const upstreamBody = new BodyHeaders();

/**
 * Implements undici's callback handler (onConnect/onHeaders/onData/…) rather
 * than the newer controller one: undici would wrap the newer one in two more
 * objects per request and parse every header into an object we do not need.
 */
export class UpstreamCall implements Dispatcher.DispatchHandler {
  private abortDispatch: ((reason?: Error) => void) | null = null;
  private resume: (() => void) | null = null;
  private onDrain: (() => void) | null = null;
  /** Compresses or unzips the body on its way to the client (see compression.ts). */
  private coder: Gzip | Gunzip | null = null;
  /** Whether the upstream sent the coder any body at all. */
  private coded = false;
  private finished = false;
  /** Servers that could not take the request, when it went on to another. */
  private tried: UpstreamServer[] | null = null;

  constructor(
    private readonly exchange: Exchange,
    private server: UpstreamServer,
  ) {}

  start(): void {
    const { exchange } = this;
    this.server.inFlight++;
    // A request that goes on to another server counts its upstream time from the first.
    if (this.tried === null) exchange.upstreamStartedAt = performance.now();
    try {
      this.server.pool.dispatch(
        {
          path: upstreamPath(exchange),
          method: exchange.method,
          headers: upstreamHeaders(exchange),
          body: exchange.upgrade === null && hasBody(exchange.headers) ? exchange.body : null,
          // undici writes Connection and Upgrade itself; an upstream that answers without switching is an ordinary response.
          upgrade: exchange.upgrade?.protocol,
        },
        this,
      );
    } catch (error) {
      this.onError(error as Error);
    }
  }

  /** The client left: stop the upstream request. */
  abort(): void {
    if (!this.finished) this.abortDispatch?.(clientGone());
    this.coder?.destroy();
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortDispatch = abort;
    // The client left while the request waited for a pooled connection: it is not sent.
    if (this.exchange.res.destroyed) abort(clientGone());
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean {
    // The client got its own 100 Continue from Node; upstream 1xx stop here.
    if (statusCode < 200) return true;
    const { res } = this.exchange;
    if (res.destroyed) {
      // Paused (false) alone, the request would hold its connection for good.
      this.abortDispatch?.(clientGone());
      return false;
    }
    this.resume = resume;
    upstreamBody.reset();
    const headers = responseHeaders(this.exchange, rawHeaders, upstreamBody);
    const coding = chooseCoding(this.exchange, statusCode, upstreamBody);
    res.writeHead(statusCode, statusText, coding === null ? headers : recode(headers, coding, upstreamBody));
    if (coding === 'gzip' || coding === 'gunzip') this.startCoder(bodyCoder(coding, upstreamBody));
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.coder !== null) {
      this.coded ||= chunk.length > 0;
      return this.coder.write(chunk);
    }
    const { res } = this.exchange;
    if (res.write(chunk)) return true;
    if (this.onDrain === null) {
      this.onDrain = () => this.resume?.();
      res.on('drain', this.onDrain);
    }
    return false;
  }

  /** The upstream switched protocols: the client gets its 101, then the two connections are joined. */
  onUpgrade(statusCode: number, rawHeaders: Buffer[] | string[] | null, upstream: Duplex): void {
    this.finish();
    const { exchange } = this;
    const { socket: client, head, protocol } = exchange.upgrade!;
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    exchange.res.statusCode = statusCode;
    client.write(switchingProtocolsHead(responseHeaders(exchange, (rawHeaders ?? []) as Buffer[]), protocol), 'latin1');
    if (head.length > 0) upstream.write(head);
    joinConnections(client, upstream);
  }

  onComplete(): void {
    this.finish();
    if (this.coder !== null) this.coder.end();
    else this.exchange.res.end();
  }

  onError(error: Error): void {
    this.finish();
    if (this.failOver(error)) return;
    this.coder?.destroy();
    const { res } = this.exchange;
    if (res.headersSent) res.destroy();
    else if (!res.destroyed) this.exchange.fail(errorCodeFor(error));
  }

  /**
   * The body goes through `coder` into the response, which ends when the
   * coder does. A body that will not unzip cuts the response; an empty one
   * (which gunzip calls truncated) is an empty response.
   */
  private startCoder(coder: Gzip | Gunzip): void {
    const { res } = this.exchange;
    this.coder = coder;
    coder.on('drain', () => this.resume?.());
    coder.on('error', () => (!this.coded && this.finished ? res.end() : res.destroy()));
    coder.pipe(res);
  }

  /**
   * A server that could not be reached is passed over for a while, and a
   * request it never answered goes on to the next server, as nginx's
   * proxy_next_upstream does in API Umbrella: only before any response,
   * and only when sending it again is safe (no body to replay, a method
   * nginx retries, no protocol switch).
   */
  private failOver(error: Error): boolean {
    const { exchange, server } = this;
    const upstreams = exchange.route.backend.upstreams;
    if (!upstreams.canFailOver) return false;
    const unreachable = isUnreachable(error);
    if (unreachable) upstreams.markFailed(server, performance.now());
    if (!(unreachable || isConnectionLost(error)) || this.coder !== null || exchange.res.headersSent || exchange.res.destroyed) return false;
    if (!isSafeToResend(exchange)) return false;
    (this.tried ??= []).push(server);
    const next = upstreams.pickAgain(this.tried, performance.now());
    if (next === null) return false;
    this.server = next;
    this.finished = false;
    this.abortDispatch = null;
    this.start();
    return true;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.server.inFlight--;
    this.exchange.upstreamEndedAt = performance.now();
  }
}

/** Errors of a server that took no connection: refused, unreachable, unknown to DNS, or too slow to connect. */
const UNREACHABLE: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** A host of several addresses fails as an AggregateError whose code is its first address's: any unreachable one counts. */
export function isUnreachable(error: Error): boolean {
  if (UNREACHABLE.has((error as { code?: string }).code ?? '')) return true;
  const inner = (error as { errors?: unknown }).errors;
  return Array.isArray(inner) && inner.some((each) => UNREACHABLE.has((each as { code?: string } | null)?.code ?? ''));
}

/** A connection that broke before any response: closed, reset, or written to after the server had closed it (a reused keep-alive one). */
const CONNECTION_LOST: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

export function isConnectionLost(error: Error): boolean {
  return CONNECTION_LOST.has((error as { code?: string }).code ?? '');
}

function clientGone(): Error {
  return new Error('client closed the connection');
}

/** nginx resends neither POST, PATCH nor LOCK; a streamed body could not be sent twice anyway. */
const NOT_RESENT: ReadonlySet<string> = new Set(['POST', 'PATCH', 'LOCK']);

function isSafeToResend(exchange: Exchange): boolean {
  return exchange.upgrade === null && !NOT_RESENT.has(exchange.method) && !hasBody(exchange.headers);
}

function errorCodeFor(error: Error): ErrorCode {
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'GATEWAY_TIMEOUT';
  if (code === 'UND_ERR_INVALID_ARG' || code === 'UND_ERR_NOT_SUPPORTED') return 'INTERNAL_SERVER_ERROR';
  return 'BAD_GATEWAY';
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return length === undefined ? headers['transfer-encoding'] !== undefined : length !== '0';
}

/** The backend path and the edited query, then the backend's URL rewrites (last, as API Umbrella applies them). */
export function upstreamPath(exchange: Exchange): string {
  let query = upstreamQuery(exchange.query, exchange.settings.queryAppend);
  if (exchange.settings.passApiKeyQueryParam && exchange.apiKey !== null) query += `${query === '' ? '' : '&'}api_key=${encodeURIComponent(exchange.apiKey)}`;
  const target = query === '' ? exchange.backendPath : `${exchange.backendPath}?${query}`;
  const { rewrites } = exchange.route.backend;
  return rewrites === null ? target : rewrites.apply(exchange.method, target);
}

/**
 * The client's headers minus the dropped ones, then the backend's header
 * settings, then what the gateway adds: Host, X-Forwarded-*, the request id
 * and the user's identity. A flat [name, value, …] list, as undici takes it.
 */
export function upstreamHeaders(exchange: Exchange): string[] {
  const { headers, settings } = exchange;
  const dropped = settings.droppedHeaders;
  const listed = connectionListed(headers.connection);
  const { keyInAuthorization } = exchange;
  const out: string[] = [];
  for (const name in headers) {
    if (dropped.has(name) || (keyInAuthorization && name === 'authorization') || (listed !== null && listed.has(name))) continue;
    const value = headers[name]!;
    if (typeof value === 'string') out.push(name, value);
    else for (const item of value) out.push(name, item);
  }
  for (const header of settings.headers) out.push(header.key, header.value);
  if (settings.authorization !== null) out.push('authorization', settings.authorization);
  if (settings.passApiKeyHeader && exchange.apiKey !== null) out.push('x-api-key', exchange.apiKey);
  // Gzip or nothing, whatever else the client takes: the gateway can then undo any coding the upstream picks.
  if (exchange.acceptsGzip) out.push('accept-encoding', 'gzip');
  const priorForwardedFor = headers['x-forwarded-for'];
  const peer = exchange.socket.remoteAddress ?? '';
  out.push(
    'host',
    exchange.route.backend.hostHeader ?? exchange.host,
    'x-forwarded-for',
    priorForwardedFor === undefined ? peer : `${priorForwardedFor}, ${peer}`,
    'x-forwarded-proto',
    exchange.protocol,
    'x-forwarded-port',
    portOf(exchange.host, exchange.protocol),
    'x-forwarded-host',
    exchange.host,
    'x-api-umbrella-request-id',
    exchange.requestId,
  );
  const { user } = exchange;
  if (user !== null) {
    out.push('x-api-user-id', user.id);
    if (user.roles.length > 0) out.push('x-api-roles', user.roles.join(','));
  }
  return out;
}

function portOf(host: string, protocol: string): string {
  const colon = host.lastIndexOf(':');
  if (colon > host.lastIndexOf(']')) return host.slice(colon + 1);
  return protocol === 'https' ? '443' : '80';
}

/** Lengths of the response header names that need a closer look: hop-by-hop ones, Location and those about the body. */
const SPECIAL_NAME_LENGTHS = new Set([...HOP_BY_HOP, 'location', ...BODY_HEADER_NAMES].map((name) => name.length));

/**
 * The upstream's headers minus hop-by-hop ones, Location made public, plus
 * the request id and rate-limit headers; those about the body are noted in `body`.
 */
export function responseHeaders(exchange: Exchange, rawHeaders: Buffer[], body: BodyHeaders | null = null): string[] {
  const out: string[] = [];
  let connection: string | undefined;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    // latin1 both ways keeps header bytes exactly as the upstream sent them.
    const name = rawHeaders[index]!.toString('latin1');
    let value = rawHeaders[index + 1]!.toString('latin1');
    if (SPECIAL_NAME_LENGTHS.has(name.length)) {
      const lower = name.toLowerCase();
      if (lower === 'connection') connection = value;
      if (HOP_BY_HOP.has(lower)) continue;
      if (lower === 'location') value = rewriteLocation(value, exchange.route, `${exchange.protocol}://${exchange.host}`);
      else body?.note(lower, value);
    }
    out.push(name, value);
  }
  const listed = connectionListed(connection);
  const kept = listed === null ? out : withoutListed(out, listed);
  kept.push(REQUEST_ID_HEADER, exchange.requestId);
  if (exchange.rateLimit !== null) kept.push(...rateLimitHeaders(exchange.rateLimit));
  const { responseHeaders: settings } = exchange.settings;
  return settings === null ? kept : applyResponseHeaders(kept, settings, body);
}

function withoutListed(headers: string[], listed: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let index = 0; index < headers.length; index += 2) {
    if (!listed.has(headers[index]!.toLowerCase())) kept.push(headers[index]!, headers[index + 1]!);
  }
  return kept;
}
