// One proxied request from match to log entry: the checks in API Umbrella's
// order (settings → HTTPS → key → roles → IPs and referers → rate limits),
// then the upstream call, and one analytics entry when the response is over.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { AnalyticsRecorder } from '../analytics/log-entry.js';
import type { KeyIndex } from '../api-users/key-index.js';
import type { KeyHolder } from '../api-users/model.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import type { OpenWork } from '../lib/open-work.js';
import type { RateLimitDecision, RateLimiter, RateLimitHeaders } from '../rate-limit/limiter.js';
import { analyticsEntry } from './analytics-entry.js';
import { authorizationCarries, extractApiKey } from './api-key.js';
import { userRestrictions } from './client-restrictions.js';
import { acceptsGzip, type CodingRequest } from './compression.js';
import { upstreamCookie, type CookieStripper } from './cookie-stripping.js';
import type { ErrorCode } from './errors.js';
import { UpstreamCall } from './forward.js';
import { nextRequestId } from './request-id.js';
import type { RequestTarget } from './request-url.js';
import type { ResponseCache } from './response-cache.js';
import { writeError, type ErrorExtras, type ErrorRequest } from './respond.js';
import type { GatewayRoute } from './routes.js';
import type { SendPauseWatch } from './send-pauses.js';
import { limitsFor, type EffectiveSettings } from './settings.js';
import type { UpgradeRequest } from './upgrade-tunnel.js';
import type { UpstreamFailure, UpstreamFailureLog } from './upstream-failures.js';
import type { UpstreamServer } from './upstreams.js';

/** What every exchange shares: the gateway's collaborators. */
export interface ExchangeDeps {
  readonly config: Config;
  readonly keyIndex: Pick<KeyIndex, 'find'>;
  readonly rateLimiter: RateLimiter;
  readonly analytics: AnalyticsRecorder;
  readonly clock: Clock;
  /** null: cache.max_size_mb is 0. */
  readonly cache: ResponseCache | null;
  /** null: strip_cookies is empty. */
  readonly cookieStripper: CookieStripper | null;
  /** null: strip_response_cookies is empty. */
  readonly responseCookieStripper: CookieStripper | null;
  readonly upstreamFailures: UpstreamFailureLog;
  /** Counts the exchange from its start to its response's close: a retiring app waits for it. */
  readonly work: OpenWork;
  /** Closes the connection of a client that stops taking its response (proxy.client_send_timeout_ms). */
  readonly sendPauses: SendPauseWatch;
}

/** The request as the gateway read it before matching. */
export interface ClientRequest {
  readonly raw: IncomingMessage;
  readonly res: ServerResponse;
  readonly target: RequestTarget;
  readonly protocol: string;
  /** Host header (or a trusted X-Forwarded-Host). */
  readonly host: string;
  /** Client IP through trusted_proxies. */
  readonly ip: string;
  /** A trusted proxy's X-Forwarded-Port; null: the port the client connected to. */
  readonly forwardedPort: string | null;
  /** Present when the client asked to switch protocols (WebSocket). */
  readonly upgrade?: UpgradeRequest;
  /** Where the request body comes from when not from `raw` (an upgrade request that carries one). */
  readonly body?: Readable;
}

export class Exchange implements ErrorRequest, CodingRequest {
  readonly startedAt = performance.now();
  readonly requestAt: number;
  readonly requestId = nextRequestId();
  readonly raw: IncomingMessage;
  readonly res: ServerResponse;
  /** Kept here: Node detaches it from the request once the response is done. */
  readonly socket: Socket;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly url: string;
  readonly path: string;
  readonly query: string;
  readonly protocol: string;
  readonly host: string;
  readonly ip: string;
  /** A trusted proxy's X-Forwarded-Port; null: the connection's own port. */
  readonly forwardedPort: string | null;
  /** The path the upstream gets: frontend_prefix replaced once by backend_prefix. */
  readonly backendPath: string;
  readonly settings: EffectiveSettings;
  readonly upgrade: UpgradeRequest | null;
  /** The request body's stream (read only when the headers announce a body). */
  readonly body: Readable;
  user: KeyHolder | null = null;
  /** The key the client presented: the one its user was found by, for backends that pass it upstream; or an unknown one, refused, whose preview is logged. */
  apiKey: string | null = null;
  /** The key when the client sent it as the api_key query parameter: a rewritten redirect carries it on. */
  queryKey: string | null = null;
  /** What limits by api_key count under: the key's lookup prefix; null (the client IP) without a key or for a user throttled by IP. */
  limitsKey: string | null = null;
  /** The client's Authorization holds the key (as its source, or beside another): it is not passed upstream. */
  keyInAuthorization = false;
  /** Lowercase error code when the gateway refused the request. */
  deniedCode: string | null = null;
  /** The Content-Type the client was sent, for analytics; null until a response head goes out with one. */
  responseContentType: string | null = null;
  /** The backend's analytics dimensions (X-Api-Umbrella-Analytics-Custom1..3), as its response named them. */
  responseCustom: [string | null, string | null, string | null] | null = null;
  rateLimit: RateLimitHeaders | null = null;
  upstreamStartedAt = 0;
  upstreamEndedAt = 0;
  /** An upgrade whose upstream switched protocols: the client got a 101 on its own connection, not through `res`. */
  switchedProtocols = false;
  private call: UpstreamCall | null = null;
  /** Queued behind another response on its connection: its connection's close ends it too. */
  private readonly queued: boolean;
  private closed = false;
  private takesGzip: boolean | undefined;
  private keptCookie: string | null | undefined;

  constructor(
    private readonly deps: ExchangeDeps,
    client: ClientRequest,
    readonly route: GatewayRoute,
  ) {
    this.requestAt = deps.clock.now();
    this.raw = client.raw;
    this.res = client.res;
    this.socket = client.raw.socket;
    this.method = client.raw.method!;
    this.headers = client.raw.headers;
    this.url = client.raw.url!;
    this.path = client.target.path;
    this.query = client.target.query;
    this.protocol = client.protocol;
    this.host = client.host;
    this.ip = client.ip;
    this.forwardedPort = client.forwardedPort;
    this.upgrade = client.upgrade ?? null;
    this.body = client.body ?? client.raw;
    this.backendPath = route.backendPrefix + this.path.slice(route.frontendPrefix.length);
    this.settings = route.backend.settings.choose(this.method, this.backendPath, this.query);
    // A response closes once: 'on' spares the wrapper 'once' would allocate per request.
    this.res.on('close', this.onClose);
    // Node never closes a response queued behind another on its connection (pipelining) when the connection goes first.
    this.queued = this.res.socket === null;
    if (this.queued) this.socket.once('close', this.onClose);
    deps.work.begin();
  }

  /** proxy.gzip: read from the config, not copied into every exchange. */
  /** listen.https_port: where a backend's redirect to https sends a client that came over http. */
  get httpsPort(): number | null {
    return this.deps.config.listen.https_port;
  }

  get compressBodies(): boolean {
    return this.deps.config.proxy.gzip;
  }

  /** The client takes a gzipped body: asked for in Accept-Encoding, over HTTP/1.1 (nginx's gzip_http_version). */
  get acceptsGzip(): boolean {
    return (this.takesGzip ??= this.raw.httpVersion !== '1.0' && acceptsGzip(this.headers['accept-encoding']));
  }

  get cache(): ResponseCache | null {
    return this.deps.cache;
  }

  get responseCookieStripper(): CookieStripper | null {
    return this.deps.responseCookieStripper;
  }

  /** The Cookie header the upstream gets, Parasol's own cookies and strip_cookies taken out; null: none (for the cache too). */
  get upstreamCookie(): string | null {
    if (this.keptCookie === undefined) {
      const { cookie } = this.headers;
      this.keptCookie = cookie === undefined ? null : upstreamCookie(cookie, this.deps.cookieStripper);
    }
    return this.keptCookie;
  }

  run(): void {
    const { settings } = this;
    if (settings.requireHttps && this.protocol !== 'https') return this.deny('HTTPS_REQUIRED');
    const presented = extractApiKey(this.headers, this.query);
    if (presented !== null) {
      const record = this.deps.keyIndex.find(presented.key);
      this.apiKey = presented.key;
      if (record === null) return this.deny('API_KEY_INVALID');
      // Known from here on, so the checks below log their refusals with the user, as API Umbrella does.
      const { user } = record;
      this.user = user;
      this.limitsKey = user.throttle_by_ip ? null : record.prefix;
      if (!user.enabled) return this.deny('API_KEY_DISABLED');
      if (this.requestAt >= user.expires_at_ms) return this.deny('API_KEY_EXPIRED');
      if (!user.email_verified && settings.verifiedEmailSince !== null && user.created_at_ms >= settings.verifiedEmailSince) return this.deny('API_KEY_UNVERIFIED');
      // API Umbrella's HTTPS transition: older keys may keep using HTTP, newer ones may not.
      if (settings.httpsRequiredSince !== null && this.protocol !== 'https' && user.created_at_ms >= settings.httpsRequiredSince) return this.deny('HTTPS_REQUIRED');
      this.keyInAuthorization = presented.source === 'basic_auth' || authorizationCarries(this.headers.authorization, presented.key);
      if (presented.source === 'query') this.queryKey = presented.key;
    } else if (!settings.disableApiKey) {
      return this.deny('API_KEY_MISSING');
    }
    if (!holdsRoles(this.user, settings.requiredRoles)) return this.deny('API_KEY_UNAUTHORIZED');
    if (!this.fromAllowedClient()) return this.deny('API_KEY_UNAUTHORIZED');
    this.checkRateLimits();
  }

  /** For the log: the call to `server` failed, and the client got `answered`. */
  upstreamFailed(server: UpstreamServer, error: Error, answered: UpstreamFailure['answered']): void {
    this.deps.upstreamFailures.record({ backendId: this.route.backend.id, server, error, answered });
  }

  /** A write of the response had to wait for the client: from now on, a client that takes nothing for too long loses its connection. */
  clientBlocked(): void {
    this.deps.sendPauses.watch(this.res, this.socket);
  }

  /** Called by the upstream call when the upstream could not answer. */
  fail(code: ErrorCode): void {
    this.responseContentType = writeError(this.res, this.deps.config, this, code, { rateLimit: this.rateLimit });
  }

  /** The backend's lists and the user's are each enforced on their own, not merged. */
  private fromAllowedClient(): boolean {
    const api = this.settings.clientRestrictions;
    if (api !== null && !api.admits(this)) return false;
    const user = this.user === null ? null : userRestrictions(this.user.settings);
    return user === null || user.admits(this);
  }

  private checkRateLimits(): void {
    const limits = limitsFor(this.settings, this.user);
    if (limits.length === 0) return this.forward();
    const decision = this.deps.rateLimiter.check({
      bucket: this.settings.rateLimitBucket ?? this.route.backend.frontendHost,
      apiKeyPrefix: this.limitsKey,
      ip: this.ip,
      limits,
    });
    // A shared store answers with a promise; the in-memory one answers now, without one.
    if (decision instanceof Promise) {
      decision.then(
        (answer) => this.afterRateLimits(answer),
        () => this.res.destroyed || this.fail('INTERNAL_SERVER_ERROR'),
      );
    } else {
      this.afterRateLimits(decision);
    }
  }

  private afterRateLimits(decision: RateLimitDecision): void {
    this.rateLimit = decision.headers;
    if (!decision.allowed) return this.deny('OVER_RATE_LIMIT', { rateLimit: decision.headers, retryAfterSeconds: decision.retryAfterSeconds ?? undefined });
    this.forward();
  }

  private forward(): void {
    // The client may have gone while the limiter answered.
    if (this.res.destroyed) return;
    this.call = new UpstreamCall(this, this.route.backend.upstreams.pick(this.ip, this.startedAt));
    this.call.start();
  }

  private deny(code: ErrorCode, extras?: ErrorExtras): void {
    this.deniedCode = code.toLowerCase();
    this.responseContentType = writeError(this.res, this.deps.config, this, code, extras);
  }

  private readonly onClose = (): void => {
    if (this.closed) return;
    this.closed = true;
    if (this.queued) this.socket.off('close', this.onClose);
    this.deps.work.end();
    // A client that leaves mid-request stops the upstream call too.
    this.call?.abort();
    if (this.deps.analytics.enabled && !this.settings.disableAnalytics) this.deps.analytics.record(analyticsEntry(this));
  };
}

function holdsRoles(user: KeyHolder | null, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  if (user === null) return false;
  for (const role of required) if (!user.roles.includes(role)) return false;
  return true;
}
