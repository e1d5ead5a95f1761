// The upstream leg of an exchange: the rewritten request goes out on the
// server's keep-alive pool, and the response streams back chunk by chunk
// with backpressure both ways. A response the cache may keep is copied into
// it on the way; a request the cache can answer is answered from it, through
// the same steps as an upstream's response.
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { Gunzip, Gzip } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { peerAddress } from '../lib/peer-address.js';
import { CacheFill } from './cache-fill.js';
import { cacheable, cacheKeyOf, carriesUnkeyedClaims, invalidates, mayFill } from './cache-key.js';
import { CACHE_HEADER_NAMES, CacheHeaders, mayBeFresh } from './cache-policy.js';
import { notModified, notModifiedHeaderLines } from './conditional-request.js';
import { BODY_HEADER_NAMES, BodyHeaders, bodyCoder, chooseCoding, defaultType, recode } from './compression.js';
import type { ErrorCode } from './errors.js';
import type { Exchange } from './exchange.js';
import { setsParasolCookie } from './cookie-stripping.js';
import { codedTransfer, connectionListed, expectsContinue, hasBody, HOP_BY_HOP, REQUEST_ID_HEADER } from './headers.js';
import { rewriteLocation } from './location.js';
import { upstreamQuery } from './request-url.js';
import { applyResponseHeaders } from './response-header-settings.js';
import { rateLimitHeaders } from './respond.js';
import { COLLAPSE_WAIT_MS, type CacheHit, type CacheRequest, type FetchOutcome, type FetchWaiter } from './response-cache.js';
import { joinConnections, switchingProtocolsHead } from './upgrade-tunnel.js';
import type { UpstreamFailure } from './upstream-failures.js';
import type { QueuedCall } from './upstream-queue.js';
import type { UpstreamServer } from './upstreams.js';

/** Noted afresh for each response; its headers are read synchronously, one response at a time. */
const upstreamBody = new BodyHeaders();
const upstreamCaching = new CacheHeaders();
const X_CACHE = Buffer.from('X-Cache');
const HIT = Buffer.from('HIT');
const AGE = Buffer.from('Age');
const ignore = (): void => {};

/**
 * Implements undici's callback handler (onConnect/onHeaders/onData/…) rather
 * than the newer controller one: undici would wrap the newer one in two more
 * objects per request and parse every header into an object we do not need.
 */
export class UpstreamCall implements Dispatcher.DispatchHandler, CacheRequest, FetchWaiter, QueuedCall {
  private abortDispatch: ((reason?: Error) => void) | null = null;
  private resume: (() => void) | null = null;
  private onDrain: (() => void) | null = null;
  /** Compresses or unzips the body on its way to the client (see compression.ts). */
  private coder: Gzip | Gunzip | null = null;
  /** Whether the upstream sent the coder any body at all. */
  private coded = false;
  private finished = false;
  /** The upstream answered 204 or 304, which end at their head whatever length they state. */
  private bodiless = false;
  /** Servers that could not take the request, when it went on to another. */
  private tried: UpstreamServer[] | null = null;
  /** The backend path and query, worked out once. */
  private target: string | null = null;
  /** The upstream request's headers, worked out once (for a Vary as much as for the request). */
  private headerList: string[] | null = null;
  /** Its key in the response cache, worked out when first needed. */
  private cacheKey: string | null = null;
  /** The upstream's response may go into the cache. */
  private mayStore = false;
  /** This call fetches a key the cache holds no fresh response for: other requests for it wait. */
  private fetching = false;
  private fill: CacheFill | null = null;
  /** Waiting for another request's fetch of the same key. */
  private stopWaiting: (() => void) | null = null;
  private waitTimer: NodeJS.Timeout | null = null;
  /** The request went to a server (not answered from the cache). */
  private dispatched = false;

  constructor(
    private readonly exchange: Exchange,
    private server: UpstreamServer,
  ) {}

  start(): void {
    const { exchange } = this;
    this.target = upstreamPath(exchange);
    if (cacheable(exchange)) {
      this.mayStore = mayFill(exchange);
      const cache = exchange.cache!;
      // An empty cache answers nothing, and has no fetch to wait for nor one to begin for a backend that never sent anything to keep: the key is worked out once a response may be kept.
      if ((!cache.empty || cache.keepsFrom(exchange.route.backend.cacheKeyPrefix)) && this.answeredFromCache(this.keyOfRequest())) return;
    }
    this.dispatch();
  }

  private keyOfRequest(): string {
    return (this.cacheKey ??= cacheKeyOf(this.exchange, this.target!));
  }

  private dispatch(): void {
    const { exchange } = this;
    this.dispatched = true;
    this.server.inFlight++;
    // A request that goes on to another server counts its upstream time from the first.
    if (this.tried === null) exchange.upstreamStartedAt = performance.now();
    const body = exchange.upgrade === null && hasBody(exchange.headers) ? exchange.body : null;
    // Let through: a client waiting for 100 Continue sends its body now (plugin.ts).
    if (body !== null && this.tried === null && expectsContinue(exchange.raw)) exchange.res.writeContinue();
    try {
      const connectionLeft = this.server.pool.dispatch(
        {
          path: this.target!,
          method: exchange.method,
          headers: (this.headerList ??= upstreamHeaders(exchange)),
          body,
          // undici writes Connection and Upgrade itself; an upstream that answers without switching is an ordinary response.
          upgrade: exchange.upgrade?.protocol,
        },
        this,
      );
      // The pool has no connection left: this request, or the next, waits for one, and undici's timeouts have not begun.
      if (!connectionLeft && !this.finished) this.server.queue.watch(this);
    } catch (error) {
      this.onError(error as Error);
    }
  }

  /** The client left: stop the upstream request. */
  abort(): void {
    this.endWait();
    if (!this.finished) this.abortDispatch?.(clientGone());
    this.coder?.destroy();
    this.fill?.abandon('failed');
    this.endFill('failed');
  }

  onConnect(abort: (reason?: Error) => void): void {
    // The client left, or got its 504, while the request waited for a pooled connection: it is not sent. Thrown rather
    // than abort(), which would close the connection it was given: undici then drops the request and keeps the connection.
    if (this.finished || this.exchange.res.destroyed) throw NOT_SENT;
    this.abortDispatch = abort;
  }

  get waitingForConnection(): boolean {
    return this.abortDispatch === null && !this.finished;
  }

  /** Waited for a connection as long as a response may take: 504, as for an upstream too slow to answer. */
  queueTimedOut(): void {
    this.finish();
    // Requests waiting for this one's fetch of the same URL go on without it.
    this.endFill('failed');
    const { res } = this.exchange;
    if (res.destroyed) return;
    this.exchange.upstreamFailed(this.server, queueTimeoutError(), 'GATEWAY_TIMEOUT');
    try {
      this.exchange.fail('GATEWAY_TIMEOUT');
    } catch {
      // Run from the sweep's timer, where a throw would end the process.
      res.destroy();
    }
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
    const caching = this.exchange.cache === null ? null : upstreamCaching;
    caching?.reset();
    let headers = responseHeaders(this.exchange, rawHeaders, upstreamBody, caching);
    this.bodiless = statusCode === 204 || statusCode === 304;
    // A 204 states no length (RFC 9110 section 8.6), as nginx sends it; a 304's is the resource's, and stays.
    if (statusCode === 204) headers = withoutListed(headers, CONTENT_LENGTH);
    if (upstreamBody.transferCoded) {
      // Answered 502 in onError, and logged as the upstream's failure.
      this.abortDispatch?.(codedTransferError());
      return false;
    }
    const addedType = defaultType(statusCode, upstreamBody);
    if (addedType !== null) {
      headers.push('Content-Type', addedType);
      upstreamBody.type = addedType;
    }
    this.exchange.responseContentType = upstreamBody.type ?? null;
    const coding = chooseCoding(this.exchange, statusCode, upstreamBody);
    if (this.mayStore) this.startFill(statusCode, statusText, rawHeaders);
    else if (this.exchange.cache !== null && !this.exchange.cache.empty && invalidates(this.exchange.method, statusCode)) this.exchange.cache.invalidate(this.keyOfRequest());
    const out = coding === null ? headers : recode(headers, coding, upstreamBody);
    try {
      res.writeHead(statusCode, statusText, out);
    } catch (error) {
      writeHeadAgain(res, statusCode, statusText, out, error);
    }
    if (coding === 'gzip' || coding === 'gunzip') this.startCoder(bodyCoder(coding, upstreamBody));
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.fill !== null) {
      const added = this.fill.add(chunk);
      if (added !== true) this.endFill(added);
    }
    if (this.coder !== null) {
      this.coded ||= chunk.length > 0;
      if (this.coder.write(chunk)) return true;
      this.exchange.clientBlocked();
      return false;
    }
    const { res } = this.exchange;
    if (res.write(chunk)) return true;
    this.exchange.clientBlocked();
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
    // The upstream's time runs until the tunnel closes, as nginx's upstream_response_time: the analytics entry ends it then.
    exchange.upstreamEndedAt = 0;
    const { socket: client, head, protocol } = exchange.upgrade!;
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    exchange.res.statusCode = statusCode;
    exchange.switchedProtocols = true;
    client.write(switchingProtocolsHead(responseHeaders(exchange, (rawHeaders ?? []) as Buffer[]), protocol), 'latin1');
    if (head.length > 0) upstream.write(head);
    joinConnections(client, upstream);
  }

  onComplete(): void {
    this.finish();
    if (this.coder !== null) this.coder.end();
    else this.exchange.res.end();
    // After this response has ended: the requests waiting for it are answered from the cache now.
    if (this.fill !== null) this.endFill(this.fill.finish() ? 'stored' : 'uncacheable');
  }

  onError(error: Error): void {
    // Over already (its client got a 504 while it waited for a connection): what undici says now reaches no one.
    if (this.finished) return;
    // undici holds a 204 or 304 to the Content-Length it states, though it ends at its head (as nginx takes it): the answer is whole.
    if (this.bodiless && (error as { code?: string }).code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return this.onComplete();
    this.finish();
    if (this.failOver(error)) return;
    this.fill?.abandon('failed');
    this.endFill('failed');
    this.coder?.destroy();
    const { res } = this.exchange;
    // A client that left aborted the call itself: nothing went wrong upstream.
    if (res.destroyed) return;
    const answered = res.headersSent ? 'cut short' : errorCodeFor(error);
    this.exchange.upstreamFailed(this.server, error, answered);
    if (answered === 'cut short') cutShort(res);
    else this.exchange.fail(answered);
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
    coder.on('error', (error) => {
      if (!this.coded && this.finished) return res.end();
      // The backend's body would not unzip: its failure, logged as any other.
      if (!res.destroyed) this.exchange.upstreamFailed(this.server, error, 'cut short');
      cutShort(res);
    });
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
    this.dispatch();
    return true;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (!this.dispatched) return;
    this.server.inFlight--;
    this.exchange.upstreamEndedAt = performance.now();
  }

  get method(): string {
    return this.exchange.method;
  }

  get acceptsGzip(): boolean {
    return this.exchange.acceptsGzip;
  }

  upstreamHeader(name: string): string | undefined {
    const list = (this.headerList ??= upstreamHeaders(this.exchange));
    let value: string | undefined;
    for (let index = 0; index < list.length; index += 2) {
      const header = list[index]!;
      // The gateway's and the client's names are lowercase already; a backend's header setting may not be.
      if (header.length !== name.length || (header !== name && header.toLowerCase() !== name)) continue;
      value = value === undefined ? list[index + 1]! : `${value}, ${list[index + 1]!}`;
    }
    return value;
  }

  /**
   * Answers from the cache when it holds a fresh response, or waits for a
   * request fetching the key (true); false: the request goes upstream, and
   * a GET's response may be kept.
   */
  private answeredFromCache(key: string): boolean {
    if (carriesUnkeyedClaims(this.exchange.headers)) {
      this.mayStore = false;
      return false;
    }
    const cache = this.exchange.cache!;
    const hit = cache.find(key, this);
    if (hit !== null) {
      this.replay(hit);
      return true;
    }
    // HEAD and conditional requests may be answered from a GET's response; what they get back is not one to keep.
    if (!this.mayStore) return false;
    const stop = cache.waitFor(key, this);
    if (stop !== null) {
      this.stopWaiting = stop;
      this.waitTimer = setTimeout(() => this.fetchEnded(false), COLLAPSE_WAIT_MS);
      return true;
    }
    this.fetching = cache.beginFetch(key, this.exchange.route.backend.cacheKeyPrefix);
    return false;
  }

  /** The fetch waited for is over (or the wait too long): the cache answers if it can, else the backend. */
  fetchEnded(stored: boolean): void {
    this.endWait();
    const { exchange } = this;
    if (exchange.res.destroyed) return;
    try {
      const hit = stored ? exchange.cache!.find(this.cacheKey!, this) : null;
      if (hit !== null) return this.replay(hit);
      this.dispatch();
    } catch (error) {
      // Run inside another request's response: this one's failure stays its own.
      if (exchange.res.headersSent) exchange.res.destroy(error as Error);
      else exchange.fail('INTERNAL_SERVER_ERROR');
    }
  }

  private endWait(): void {
    this.stopWaiting?.();
    this.stopWaiting = null;
    if (this.waitTimer !== null) clearTimeout(this.waitTimer);
    this.waitTimer = null;
  }

  /** The fill (if any) is over; requests waiting for this call's fetch are told how. */
  private endFill(outcome: FetchOutcome): void {
    this.fill = null;
    if (!this.fetching) return;
    this.fetching = false;
    this.exchange.cache!.endFetch(this.cacheKey!, outcome);
  }

  /**
   * A cached response goes out as an upstream's would (headers, coding,
   * rate-limit headers), with X-Cache: HIT and its Age; to a client that
   * already holds it, as 304 Not Modified without the body.
   */
  private replay({ response, age }: CacheHit): void {
    // What goes out is the cache's own answer, not one to keep again.
    this.mayStore = false;
    const unchanged = notModified(this.exchange.headers, response);
    const headerLines = unchanged ? notModifiedHeaderLines(response.headerLines) : response.headerLines;
    const rawHeaders = headerLines.split('\n', -1).slice(0, -1).map((line) => Buffer.from(line, 'latin1'));
    rawHeaders.push(X_CACHE, HIT, AGE, Buffer.from(String(age)));
    if (!this.onHeaders(unchanged ? 304 : response.status, rawHeaders, ignore, unchanged ? 'Not Modified' : response.statusText)) return;
    if (!unchanged && this.exchange.method !== 'HEAD' && response.body.length > 0) this.onData(response.body);
    this.onComplete();
  }

  private startFill(status: number, statusText: string, rawHeaders: Buffer[]): void {
    const { exchange } = this;
    if (!mayBeFresh(status, upstreamCaching)) return this.endFill('uncacheable');
    // Not asked of it before when the cache was not in use for its backend yet (answeredFromCache).
    if (carriesUnkeyedClaims(exchange.headers)) return this.endFill('failed');
    const head = { status, statusText, rawHeaders, caching: upstreamCaching, body: upstreamBody };
    const begun = CacheFill.begin(exchange.cache!, this.keyOfRequest(), head, this, exchange.compressBodies);
    // An answer kept but for want of memory for fills ends the fetch as failed: the next one may be kept.
    if (begun !== 'uncacheable') exchange.cache!.noteKeepable(exchange.route.backend.cacheKeyPrefix);
    if (typeof begun === 'string') this.endFill(begun);
    else this.fill = begun;
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

/** Thrown by onConnect for a request no longer wanted; made once, as it is never seen outside. */
const NOT_SENT = new Error('request no longer wanted when a connection came');

/** Logged with its code, so the operator sees why the client got 504 from a server that may be answering others. */
function queueTimeoutError(): Error {
  return Object.assign(new Error('No connection to the upstream server came free within proxy.response_timeout_ms: proxy.connections_per_server are all busy'), {
    code: 'UPSTREAM_QUEUE_TIMEOUT',
  });
}

/** What Node refuses in a reason phrase; undici reads it as UTF-8, so a Latin-1 byte arrives as U+FFFD, refused too. */
const INVALID_REASON = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Node refused the response head. A reason phrase it refuses (a control
 * character, text that is not Latin-1) is replaced by the status's own, and
 * the client gets the upstream's answer; any other refusal goes back to
 * undici, which aborts the call, and the client gets 502. Node keeps what it
 * refused as the response's reason phrase, which the gateway's 502 would
 * then carry (and be refused for in turn, leaving the client waiting): it is
 * cleared first.
 */
function writeHeadAgain(res: ServerResponse, statusCode: number, statusText: string, headers: string[], error: unknown): void {
  res.statusMessage = '';
  if (!INVALID_REASON.test(statusText)) throw error;
  try {
    res.writeHead(statusCode, STATUS_CODES[statusCode] ?? '', headers);
  } catch (again) {
    res.statusMessage = '';
    throw again;
  }
}

/**
 * The upstream broke off a response already begun. Its head may still be
 * only queued (no body byte came yet): it goes out first, so the client
 * sees the status that analytics records, then the connection closes.
 */
function cutShort(res: ServerResponse): void {
  res.flushHeaders();
  res.destroy();
}

/** nginx resends neither POST, PATCH nor LOCK; a streamed body could not be sent twice anyway. */
const NOT_RESENT: ReadonlySet<string> = new Set(['POST', 'PATCH', 'LOCK']);

function isSafeToResend(exchange: Exchange): boolean {
  return exchange.upgrade === null && !NOT_RESENT.has(exchange.method) && !hasBody(exchange.headers);
}

function errorCodeFor(error: Error): UpstreamFailure['answered'] & ErrorCode {
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'GATEWAY_TIMEOUT';
  if (code === 'UND_ERR_INVALID_ARG' || code === 'UND_ERR_NOT_SUPPORTED') return 'INTERNAL_SERVER_ERROR';
  return 'BAD_GATEWAY';
}

/** Logged with its code, as undici's own errors are, so the operator sees why the client got 502. */
function codedTransferError(): Error {
  return Object.assign(new Error('The upstream sent a body in a Transfer-Encoding other than chunked, which the gateway cannot pass on'), { code: 'UPSTREAM_TRANSFER_CODING' });
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
 * settings (fixed values, then rendered templates), then what the gateway
 * adds: Host, X-Forwarded-*, the request id and the user's identity. A flat
 * [name, value, …] list, as undici takes it.
 */
export function upstreamHeaders(exchange: Exchange): string[] {
  const { headers, settings } = exchange;
  const dropped = settings.droppedHeaders;
  const listed = connectionListed(headers.connection);
  const { keyInAuthorization } = exchange;
  const out: string[] = [];
  for (const name in headers) {
    // As nginx drops them in front of API Umbrella (underscores_in_headers off): a CGI-style backend reads "X_Api_User_Id" as X-Api-User-Id.
    if (name.includes('_') || dropped.has(name) || (keyInAuthorization && name === 'authorization') || (listed !== null && listed.has(name))) continue;
    if (name === 'cookie') {
      const kept = exchange.upstreamCookie;
      if (kept !== null) out.push(name, kept);
      continue;
    }
    const value = headers[name]!;
    if (typeof value === 'string') out.push(name, value);
    else for (const item of value) out.push(name, item);
  }
  for (const header of settings.headers) out.push(header.key, header.value);
  if (settings.headerTemplates !== null) settings.headerTemplates.addTo(out, exchange);
  if (settings.authorization !== null) out.push('authorization', settings.authorization);
  if (settings.passApiKeyHeader && exchange.apiKey !== null) out.push('x-api-key', exchange.apiKey);
  // Gzip or nothing, whatever else the client takes: the gateway can then undo any coding the upstream picks.
  if (exchange.acceptsGzip) out.push('accept-encoding', 'gzip');
  const priorForwardedFor = headers['x-forwarded-for'];
  const peer = peerAddress(exchange.socket);
  out.push(
    'host',
    exchange.route.backend.upstreamHost(exchange.host),
    'x-forwarded-for',
    priorForwardedFor === undefined ? peer : `${priorForwardedFor}, ${peer}`,
    'x-forwarded-proto',
    exchange.protocol,
    'x-forwarded-port',
    // As nginx's $server_port in front of API Umbrella, unless a trusted proxy said otherwise.
    exchange.forwardedPort ?? String(exchange.socket.localPort),
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

/** The upstream's own name and version: nginx hides it in front of API Umbrella (proxy_hide_header's default), and so does the gateway. */
const SERVER = 'server';
/** X-Api-Umbrella-Analytics-Custom1..3: a backend's analytics dimensions, logged and kept from the client, as API Umbrella does. */
const CUSTOM_DIMENSION = 'x-api-umbrella-analytics-custom';
const CUSTOM_DIMENSIONS = 3;
/** Lengths of the response header names that need a closer look: hop-by-hop ones, Server, Location, the custom dimensions and those about the body or caching. */
const SPECIAL_NAME_LENGTHS = new Set([...HOP_BY_HOP, SERVER, 'location', `${CUSTOM_DIMENSION}1`, ...BODY_HEADER_NAMES, ...CACHE_HEADER_NAMES].map((name) => name.length));

/**
 * The upstream's headers minus hop-by-hop ones, Server and Surrogate-Control
 * (meant for gateways alone) and a Set-Cookie of Parasol's own cookies, Location made public, plus the request id and
 * rate-limit headers, and X-Cache: MISS when the cache is on and the
 * upstream sent none; those about the body are noted in `body`, those about
 * caching in `caching`.
 */
export function responseHeaders(exchange: Exchange, rawHeaders: Buffer[], body: BodyHeaders | null = null, caching: CacheHeaders | null = null): string[] {
  const out: string[] = [];
  let connection: string | undefined;
  let setCookieAt: number[] | undefined;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    // latin1 both ways keeps header bytes exactly as the upstream sent them.
    const name = rawHeaders[index]!.toString('latin1');
    let value = rawHeaders[index + 1]!.toString('latin1');
    if (SPECIAL_NAME_LENGTHS.has(name.length)) {
      const lower = name.toLowerCase();
      if (lower === 'connection') connection = value;
      // Each header line counts: "gzip" on one and "chunked" on the next is the list "gzip, chunked".
      else if (body !== null && lower === 'transfer-encoding') body.transferCoded ||= codedTransfer(value);
      // An empty Content-Type is none (nginx sends none): the body gets the default type instead, in onHeaders.
      if (HOP_BY_HOP.has(lower) || lower === SERVER || (value === '' && lower === 'content-type')) continue;
      if (lower.startsWith(CUSTOM_DIMENSION) && noteCustomDimension(exchange, lower, value)) continue;
      caching?.note(lower, value);
      if (lower === 'surrogate-control') continue;
      if (lower === 'location') value = rewriteLocation(value, exchange.route, exchange.protocol, exchange.host, exchange.httpsPort, exchange.queryKey);
      else if (lower !== 'set-cookie') body?.note(lower, value);
      // Parasol's own cookies, whatever strip_response_cookies says (cookie-stripping.ts).
      else if (setsParasolCookie(value)) continue;
      else if (exchange.responseCookieStripper !== null) (setCookieAt ??= []).push(out.length);
    }
    out.push(name, value);
  }
  if (setCookieAt !== undefined) stripResponseCookies(exchange, out, setCookieAt, caching);
  const listed = connectionListed(connection);
  const kept = listed === null ? out : withoutListed(out, listed);
  kept.push(REQUEST_ID_HEADER, exchange.requestId);
  if (caching !== null && !caching.hasXCache) kept.push('X-Cache', 'MISS');
  if (exchange.rateLimit !== null) kept.push(...rateLimitHeaders(exchange.rateLimit));
  const { responseHeaders: settings } = exchange.settings;
  return settings === null ? kept : applyResponseHeaders(kept, settings, body);
}

/** Whether the header is one of the custom dimensions (Custom1..3), noted on the exchange; a Custom0 or Custom4 is an ordinary header. */
function noteCustomDimension(exchange: Exchange, lowerName: string, value: string): boolean {
  const slot = lowerName.charCodeAt(CUSTOM_DIMENSION.length) - 0x31; /* "1" */
  if (slot < 0 || slot >= CUSTOM_DIMENSIONS) return false;
  (exchange.responseCustom ??= [null, null, null])[slot] = value;
  return true;
}

/** strip_response_cookies: every Set-Cookie goes when each names a listed cookie, else none does. */
function stripResponseCookies(exchange: Exchange, headers: string[], setCookieAt: readonly number[], caching: CacheHeaders | null): void {
  if (!exchange.responseCookieStripper!.stripsEvery(setCookieAt.map((at) => headers[at + 1]!))) return;
  for (let index = setCookieAt.length - 1; index >= 0; index--) headers.splice(setCookieAt[index]!, 2);
  if (caching !== null) caching.setsCookie = false;
}

const CONTENT_LENGTH: ReadonlySet<string> = new Set(['content-length']);

function withoutListed(headers: string[], listed: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let index = 0; index < headers.length; index += 2) {
    if (!listed.has(headers[index]!.toLowerCase())) kept.push(headers[index]!, headers[index + 1]!);
  }
  return kept;
}
