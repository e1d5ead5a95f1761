// The upstream leg of an exchange: the rewritten request goes out on the
// server's keep-alive pool, and the response streams back chunk by chunk
// with backpressure both ways. A response the cache may keep is copied into
// it on the way; a request the cache can answer is answered from it, through
// the same steps as an upstream's response.
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { Gunzip, Gzip } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { CACHE_HEADER_NAMES, CacheHeaders, freshLifetime, upstreamAge, varyNames } from './cache-policy.js';
import { BODY_HEADER_NAMES, BodyHeaders, bodyCoder, chooseCoding, recode } from './compression.js';
import type { ErrorCode } from './errors.js';
import type { Exchange } from './exchange.js';
import { connectionListed, HOP_BY_HOP, REQUEST_ID_HEADER } from './headers.js';
import { rewriteLocation } from './location.js';
import { upstreamQuery } from './request-url.js';
import { applyResponseHeaders } from './response-header-settings.js';
import { rateLimitHeaders } from './respond.js';
import { COLLAPSE_WAIT_MS, type CacheHit, type CacheRequest, type FetchWaiter, type StoredResponse } from './response-cache.js';
import { joinConnections, switchingProtocolsHead } from './upgrade-tunnel.js';
import type { UpstreamServer } from './upstreams.js';

/** Noted afresh for each response; its headers are read synchronously, one response at a time. */
const upstreamBody = new BodyHeaders();
const upstreamCaching = new CacheHeaders();
const X_CACHE = Buffer.from('X-Cache');
const HIT = Buffer.from('HIT');
const AGE = Buffer.from('Age');
const ignore = (): void => {};

/** A response on its way into the cache. */
interface Recording {
  readonly response: Omit<StoredResponse, 'body' | 'storedAt'>;
  /** The body's memory when its length was announced; else the chunks, joined at the end. */
  readonly body: Buffer | null;
  readonly chunks: Buffer[];
  bytes: number;
}

/** A Vary on the request id could never match another request: such a response is not kept. */
const UNMATCHABLE_VARY = REQUEST_ID_HEADER.toLowerCase();

/**
 * Implements undici's callback handler (onConnect/onHeaders/onData/…) rather
 * than the newer controller one: undici would wrap the newer one in two more
 * objects per request and parse every header into an object we do not need.
 */
export class UpstreamCall implements Dispatcher.DispatchHandler, CacheRequest, FetchWaiter {
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
  /** The backend path and query, worked out once. */
  private target: string | null = null;
  /** The upstream request's headers, worked out once (for a Vary as much as for the request). */
  private headerList: string[] | null = null;
  /** Its key in the response cache; null when the cache may neither answer nor keep it. */
  private cacheKey: string | null = null;
  /** The upstream's response may go into the cache. */
  private mayStore = false;
  /** This call fetches a key the cache has held: other requests for it wait. */
  private fetching = false;
  private recording: Recording | null = null;
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
    this.cacheKey = cacheKeyOf(this.exchange, (this.target = upstreamPath(this.exchange)));
    if (this.cacheKey === null || !this.answeredFromCache(this.cacheKey)) this.dispatch();
  }

  private dispatch(): void {
    const { exchange } = this;
    this.dispatched = true;
    this.server.inFlight++;
    // A request that goes on to another server counts its upstream time from the first.
    if (this.tried === null) exchange.upstreamStartedAt = performance.now();
    try {
      this.server.pool.dispatch(
        {
          path: this.target!,
          method: exchange.method,
          headers: (this.headerList ??= upstreamHeaders(exchange)),
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
    this.endWait();
    if (!this.finished) this.abortDispatch?.(clientGone());
    this.coder?.destroy();
    this.endFetch('failed');
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
    const caching = this.exchange.cache === null ? null : upstreamCaching;
    caching?.reset();
    const headers = responseHeaders(this.exchange, rawHeaders, upstreamBody, caching);
    const coding = chooseCoding(this.exchange, statusCode, upstreamBody);
    if (this.mayStore) this.startRecording(statusCode, statusText, rawHeaders);
    res.writeHead(statusCode, statusText, coding === null ? headers : recode(headers, coding, upstreamBody));
    if (coding === 'gzip' || coding === 'gunzip') this.startCoder(bodyCoder(coding, upstreamBody));
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.recording !== null) this.record(chunk);
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
    // After this response has ended: the requests waiting for it are answered from the cache now.
    if (this.recording !== null) this.store(this.recording);
  }

  onError(error: Error): void {
    this.finish();
    if (this.failOver(error)) return;
    this.recording = null;
    this.endFetch('failed');
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
      if (list[index]!.toLowerCase() === name) value = value === undefined ? list[index + 1]! : `${value}, ${list[index + 1]!}`;
    }
    return value;
  }

  /**
   * Answers from the cache when it holds a fresh response, or waits for a
   * request fetching the key (true); false: the request goes upstream, and
   * a GET's response may be kept.
   */
  private answeredFromCache(key: string): boolean {
    const cache = this.exchange.cache!;
    const hit = cache.find(key, this);
    if (hit !== null) {
      this.replay(hit);
      return true;
    }
    // HEAD and conditional requests may be answered from a GET's response; what they get back is not one to keep.
    if (!mayFill(this.exchange)) return false;
    const stop = cache.waitFor(key, this);
    if (stop !== null) {
      this.stopWaiting = stop;
      this.waitTimer = setTimeout(() => this.fetchEnded(false), COLLAPSE_WAIT_MS);
      return true;
    }
    this.fetching = cache.beginFetch(key);
    this.mayStore = true;
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
      this.mayStore = true;
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

  private endFetch(outcome: 'stored' | 'uncacheable' | 'failed'): void {
    if (!this.fetching) return;
    this.fetching = false;
    this.exchange.cache!.endFetch(this.cacheKey!, outcome);
  }

  /** A cached response goes out as an upstream's would (headers, coding, rate-limit headers), with X-Cache: HIT and its Age. */
  private replay({ response, age }: CacheHit): void {
    const rawHeaders = response.headerLines.split('\n', -1).slice(0, -1).map((line) => Buffer.from(line, 'latin1'));
    rawHeaders.push(X_CACHE, HIT, AGE, Buffer.from(String(age)));
    if (!this.onHeaders(response.status, rawHeaders, ignore, response.statusText)) return;
    if (this.exchange.method !== 'HEAD' && response.body.length > 0) this.onData(response.body);
    this.onComplete();
  }

  private startRecording(status: number, statusText: string, rawHeaders: Buffer[]): void {
    const { exchange } = this;
    const lifetime = freshLifetime(status, upstreamCaching, exchange.cache!);
    const initialAge = upstreamAge(upstreamCaching);
    const varied = varyNames(upstreamCaching.vary);
    // Already stale, or never to be matched: kept, it would only make requests for its key wait.
    if (lifetime <= initialAge || varied.includes(UNMATCHABLE_VARY)) {
      this.endFetch('uncacheable');
      return;
    }
    const length = upstreamBody.length === undefined ? Number.NaN : Number(upstreamBody.length);
    const coded = upstreamBody.encoding !== undefined && upstreamBody.encoding !== '';
    const response = {
      status,
      statusText,
      headerLines: headerLinesOf(rawHeaders),
      initialAge,
      lifetime,
      vary: varied.map((name) => [name, this.upstreamHeader(name)] as const),
      coded,
      unzippable: coded && chooseCoding({ ...withoutGzip, compressBodies: exchange.compressBodies }, status, upstreamBody) === 'gunzip',
    };
    // undici's chunks may share memory it reuses: the body is copied, into memory of its own.
    const body = Number.isSafeInteger(length) && length <= exchange.cache!.maxObjectBytes ? Buffer.allocUnsafeSlow(length) : null;
    this.recording = { response, body, chunks: [], bytes: 0 };
  }

  private record(chunk: Buffer): void {
    const recording = this.recording!;
    const { body } = recording;
    if (recording.bytes + chunk.length > (body === null ? this.exchange.cache!.maxObjectBytes : body.length)) {
      this.recording = null;
      this.endFetch('uncacheable');
      return;
    }
    if (body === null) recording.chunks.push(Buffer.from(chunk));
    else chunk.copy(body, recording.bytes);
    recording.bytes += chunk.length;
  }

  private store(recording: Recording): void {
    this.recording = null;
    let body = recording.body;
    if (body === null) {
      body = Buffer.allocUnsafeSlow(recording.bytes);
      let at = 0;
      for (const chunk of recording.chunks) at += chunk.copy(body, at);
    } else if (recording.bytes !== body.length) {
      // Shorter than announced: not a whole response.
      return this.endFetch('failed');
    }
    const { response } = recording;
    // A streamed body's length is known now (Transfer-Encoding is hop-by-hop and goes anyway); a 204 has none.
    const headerLines = recording.body === null && response.status !== 204 ? `${response.headerLines}Content-Length\n${body.length}\n` : response.headerLines;
    const cache = this.exchange.cache!;
    const stored = cache.store(this.cacheKey!, { ...response, headerLines, body, storedAt: cache.now() });
    this.endFetch(stored ? 'stored' : 'uncacheable');
  }
}

/** The header lines a cached response is replayed with: without X-Cache and Age, which a hit sets afresh. */
function headerLinesOf(rawHeaders: readonly Buffer[]): string {
  let lines = '';
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toString('latin1');
    const lower = name.toLowerCase();
    if (lower !== 'x-cache' && lower !== 'age') lines += `${name}\n${rawHeaders[index + 1]!.toString('latin1')}\n`;
  }
  return lines;
}

/** A client that does not take gzip, for what the cache may give one. */
const withoutGzip = { method: 'GET', acceptsGzip: false } as const;

/**
 * The request's key in the response cache, or null: only GET and HEAD, with
 * no body, no range, no credentials of the client's own and no cookie left
 * once strip_cookies is applied. The key holds the backend and where its
 * requests go, the client's scheme, the Host when the backend does not set
 * one, and the backend path with its query (api_key taken out); not the
 * user or the key.
 */
function cacheKeyOf(exchange: Exchange, target: string): string | null {
  if (exchange.cache === null) return null;
  const { method, headers } = exchange;
  if ((method !== 'GET' && method !== 'HEAD') || exchange.upgrade !== null || hasBody(headers) || headers.range !== undefined) return null;
  if ((headers.authorization !== undefined && !exchange.keyInAuthorization) || exchange.upstreamCookie !== null) return null;
  const { backend } = exchange.route;
  // The scheme too: a backend that redirects http to https must not have that redirect served over https.
  return `${backend.cacheKeyPrefix}${exchange.protocol} ${backend.hostHeader === null ? exchange.host : ''}\n${target}`;
}

/** Whether the upstream's answer to the request is one the cache may keep. */
function mayFill(exchange: Exchange): boolean {
  const { headers } = exchange;
  return exchange.method === 'GET' && headers['if-none-match'] === undefined && headers['if-modified-since'] === undefined;
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

/** Lengths of the response header names that need a closer look: hop-by-hop ones, Location and those about the body or caching. */
const SPECIAL_NAME_LENGTHS = new Set([...HOP_BY_HOP, 'location', ...BODY_HEADER_NAMES, ...CACHE_HEADER_NAMES].map((name) => name.length));

/**
 * The upstream's headers minus hop-by-hop ones and Surrogate-Control (meant
 * for gateways alone), Location made public, plus the request id and
 * rate-limit headers, and X-Cache: MISS when the cache is on and the
 * upstream sent none; those about the body are noted in `body`, those about
 * caching in `caching`.
 */
export function responseHeaders(exchange: Exchange, rawHeaders: Buffer[], body: BodyHeaders | null = null, caching: CacheHeaders | null = null): string[] {
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
      caching?.note(lower, value);
      if (lower === 'surrogate-control') continue;
      if (lower === 'location') value = rewriteLocation(value, exchange.route, `${exchange.protocol}://${exchange.host}`);
      else body?.note(lower, value);
    }
    out.push(name, value);
  }
  const listed = connectionListed(connection);
  const kept = listed === null ? out : withoutListed(out, listed);
  kept.push(REQUEST_ID_HEADER, exchange.requestId);
  if (caching !== null && !caching.hasXCache) kept.push('X-Cache', 'MISS');
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
