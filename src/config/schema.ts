// Every configuration key, its type and its default. config/default.yml
// documents the same keys for operators; a test keeps the two in step.
import { RATE_LIMIT_MODES, type LimitBy, type RateLimit, type RateLimitMode } from '../api-backends/model.js';
import { LIMIT_BY, LIMIT_BY_SPELLINGS, LIMIT_SPELLINGS, MAX_DURATION_MS, MAX_LIMIT } from '../api-backends/rate-limits.js';
import { DAY_MS } from '../lib/iso-instant.js';
import { pcreOnlySyntax } from '../lib/pcre-syntax.js';
import { UTC } from '../lib/time-zone.js';
import { isUserAgentPattern } from '../lib/user-agent-pattern.js';
import {
  addressList,
  bool,
  directoryPath,
  filePath,
  hostList,
  int,
  mappingList,
  oneOf,
  optionalEmail,
  optionalFilePath,
  optionalHeaderName,
  optionalHostname,
  optionalInt,
  optionalMailbox,
  optionalOneOf,
  optionalHost,
  optionalStr,
  optionalStrictTransportSecurity,
  optionalUrl,
  Refusal,
  str,
  structured,
  timeZone,
  type ConfigOf,
  type Schema,
} from './fields.js';

const HOUR_MS = 3_600_000;

/** The config's require_https values, in API Umbrella's words (the transition needs a start time: set it per backend). */
const DEFAULT_REQUIRE_HTTPS = ['optional', 'required_return_error'] as const;

/**
 * Keys of API Umbrella's config limits that Parasol takes and ignores:
 * `distributed` (shared between nodes; one process counts every request) and
 * `accuracy` (the bucket size of its older estimate; Parasol's has none).
 */
const AU_ONLY_LIMIT_KEYS = { distributed: bool(false), accuracy: int(1, 1, Infinity, 'milliseconds') };

export const DEFAULT_RATE_LIMITS: readonly RateLimit[] = [
  { duration: 1000, limit_by: 'ip', limit: 50, response_headers: false },
  { duration: 1000, limit_by: 'api_key', limit: 20, response_headers: false },
  { duration: 15_000, limit_by: 'ip', limit: 250, response_headers: false },
  { duration: 15_000, limit_by: 'api_key', limit: 150, response_headers: false },
  { duration: HOUR_MS, limit_by: 'api_key', limit: 1000, response_headers: true },
];

/** API Umbrella's: analytics cookies, which are the browser's business and would keep responses out of the cache. */
const DEFAULT_STRIP_COOKIES: readonly string[] = ['^__utm.*$', '^_ga$', '^is_returning$'];

export const configSchema = {
  listen: {
    /** null: every interface, IPv6 and IPv4 (IPv4 alone on a machine without IPv6), as API Umbrella listens on "*" and "[::]". */
    host: optionalHost(),
    port: int(8080, 0, 65535),
    /** null: no HTTPS listener. */
    https_port: optionalInt(0, 65535),
  },
  tls: {
    cert_file: optionalFilePath(),
    key_file: optionalFilePath(),
    /** More certificates, each for the host names it lists, chosen by the name the client asks for (SNI). */
    certificates: mappingList([], 'a list of {cert_file, key_file} (paths)', { cert_file: filePath(), key_file: filePath() }),
    /** Sent on every answer of the HTTPS listener (API Umbrella's hosts[].http_strict_transport_security); null: not sent. */
    http_strict_transport_security: optionalStrictTransportSecurity(),
  },
  data_dir: directoryPath('./data'),
  secret_key: optionalStr(),
  site_name: str('Parasol'),
  public_url: optionalUrl(['http', 'https']),
  contact_url: optionalUrl(['http', 'https', 'mailto']),
  contact_email: optionalEmail(),
  trusted_proxies: addressList([]),
  /** API Umbrella's default host (hosts: [{hostname, default: true}]): a request no backend of its own host matches is matched as if sent to it. */
  default_host: optionalHostname(),
  /** A header a trusted proxy names the client in (True-Client-IP, CF-Connecting-IP), read instead of X-Forwarded-For; null: X-Forwarded-For. */
  real_ip_header: optionalHeaderName(),
  /** API Umbrella's router.global_rate_limits, by client IP (after trusted_proxies): null turns a limit off, as by default. */
  global_rate_limits: {
    /** Requests in flight at once. */
    ip_connections: optionalInt(1, 1_000_000),
    /** Requests a second, on average. */
    ip_rate: optionalInt(1, 1_000_000),
    /** Requests over ip_rate let through at once. */
    ip_burst: int(0, 0, 1_000_000),
  },
  /** API Umbrella's ban: clients answered `response` on every path, by client IP (after trusted_proxies) or User-Agent. */
  ban: {
    ips: addressList([]),
    user_agents: structured<readonly string[]>([], 'a list of User-Agent patterns ("~*regex" any case, "~regex", or the exact User-Agent)', parseUserAgentPatterns),
    response: {
      status_code: int(403, 200, 599),
      delay: int(0, 0, 3600, 'seconds'),
      message: str('Please contact us for assistance.'),
    },
  },
  log_level: oneOf('info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  proxy: {
    connect_timeout_ms: int(10_000, 1, DAY_MS),
    response_timeout_ms: int(60_000, 1, DAY_MS),
    body_timeout_ms: int(60_000, 1, DAY_MS),
    keep_alive_timeout_ms: int(4_000, 1, DAY_MS),
    connections_per_server: int(1024, 1, 65_535),
    max_header_size: int(32_768, 1_024, 1_048_576),
    client_body_timeout_ms: int(60_000, 1, DAY_MS),
    client_send_timeout_ms: int(60_000, 1, DAY_MS),
    client_keep_alive_timeout_ms: int(72_000, 0, DAY_MS),
    shutdown_timeout_ms: int(10_000, 0, DAY_MS),
    gzip: bool(true),
    upstream_tls_verify: bool(true),
    upstream_ca_file: optionalFilePath(),
    upstream_dns_refresh_ms: int(30_000, 100, DAY_MS),
  },
  admin: {
    /**
     * The hosts the web admin and the admin API answer on, which then serve no
     * backend; []: every host (the admin then shares its origin with the
     * proxied APIs). On any port: browsers share cookies across ports.
     */
    hosts: hostList([]),
    password_min_length: int(14, 8, 72),
    session_idle_timeout_minutes: int(120, 1, 7 * 24 * 60),
    session_max_age_hours: int(24, 1, 24 * 365),
    login_max_failures: int(5, 1, 1000),
    login_lockout_minutes: int(15, 1, 24 * 60),
  },
  signup: {
    rate_limit_per_minute: int(5, 0, 1_000_000),
    rate_limit_per_hour: int(20, 0, 1_000_000),
    allow_duplicate_emails: bool(true),
    verify_email: bool(false),
    /** Every new signup is told to the notify_email address (else contact_email). */
    send_notify_email: bool(false),
    notify_email: optionalEmail(),
    terms_url: optionalUrl(['http', 'https'], { orPath: true }),
  },
  homepage: {
    file: optionalFilePath(),
  },
  mailer: {
    from: optionalMailbox(),
    smtp: {
      host: optionalHost(),
      port: int(587, 1, 65535),
      secure: bool(false),
      username: optionalStr(),
      password: optionalStr(),
    },
    /** Users are told by email this many days before their key's expires_at; 0: never. */
    key_expiry_notice_days: int(7, 0, 365),
  },
  cache: {
    /** 0: no response cache. */
    max_size_mb: int(64, 0, 1_048_576),
  },
  strip_cookies: structured<readonly string[]>(DEFAULT_STRIP_COOKIES, 'a list of regular expressions (cookie names)', parsePatterns),
  strip_response_cookies: structured<readonly string[]>([], 'a list of regular expressions (cookie names)', parsePatterns),
  analytics: {
    enabled: bool(true),
    flush_interval_ms: int(250, 10, 60_000),
    max_buffer: int(100_000, 1, 10_000_000),
    retention_days: int(90, 1, 36_500),
    /** A GeoIP database (.mmdb) for Analytics › By Location; null: none. */
    geoip_file: optionalFilePath(),
    /** The zone whose days, weeks, months and clock the analytics views are in (API Umbrella's key); the stored rows and rollups stay UTC. */
    timezone: timeZone(UTC),
  },
  default_api_backend_settings: {
    /**
     * API Umbrella's require_https for backends that leave theirs empty:
     * null or optional, plain HTTP too; required_return_error, HTTPS only
     * (API Umbrella's own default).
     */
    require_https: optionalOneOf(DEFAULT_REQUIRE_HTTPS),
    /** null (or custom): backends without a mode of their own get rate_limits; unlimited: they are unlimited (users' own limits still apply). */
    rate_limit_mode: optionalOneOf<Exclude<RateLimitMode, null>>(RATE_LIMIT_MODES),
    rate_limits: mappingList(
      DEFAULT_RATE_LIMITS,
      'a list of {duration, limit_by: ip|api_key, limit, response_headers}, no two counting the same limit_by and duration',
      // Each entry gives every key but response_headers, so the other fields' defaults go unused.
      {
        // The admin API's bounds: a window past a year has no use, and its arithmetic would lose precision (a 1e30 ms window hung the first refusal's Retry-After).
        duration: int(1000, 1, MAX_DURATION_MS, 'milliseconds, 366 days at most'),
        limit_by: oneOf<LimitBy>('ip', LIMIT_BY, LIMIT_BY_SPELLINGS),
        limit: int(0, 0, MAX_LIMIT, 'requests'),
        response_headers: bool(false),
      },
      // As the admin API does, API Umbrella's spellings (limit_to, apiKey) are taken: its operators' files keep working.
      // So are its distributed and accuracy, which mean nothing in one process with a sliding-window estimate.
      { optional: ['response_headers'], aliases: LIMIT_SPELLINGS, ignored: AU_ONLY_LIMIT_KEYS, check: oneLimitPerWindow },
    ),
  },
} satisfies Schema;

export type Config = ConfigOf<typeof configSchema>;

/** As in API Umbrella, two limits may not count the same window: which of them would answer? */
function oneLimitPerWindow(limits: readonly RateLimit[]): Refusal | null {
  const firstIndexOf = new Map<string, number>();
  for (const [index, { limit_by, duration }] of limits.entries()) {
    const window = `${limit_by} per ${duration} ms`;
    const first = firstIndexOf.get(window);
    if (first !== undefined) return new Refusal(`[${index}]`, `counts the same window as entry [${first}] (${window}); expected one limit for each limit_by and duration`);
    firstIndexOf.set(window, index);
  }
  return null;
}

function parseUserAgentPatterns(raw: unknown): readonly string[] | undefined {
  return Array.isArray(raw) && raw.every((item): item is string => typeof item === 'string' && isUserAgentPattern(item)) ? raw : undefined;
}

/** Strings that compile as JavaScript regular expressions and mean there what they mean in PCRE. */
function parsePatterns(raw: unknown): readonly string[] | undefined {
  if (!Array.isArray(raw) || !raw.every((item): item is string => typeof item === 'string')) return undefined;
  for (const pattern of raw) {
    if (pcreOnlySyntax(pattern) !== null) return undefined;
    try {
      new RegExp(pattern, 'i');
    } catch {
      return undefined;
    }
  }
  return raw;
}
