// Everything a running Parasol holds, wired once: the store, its
// repositories, the publisher and the key index. Servers, CLI commands and
// tests all start from here.
import { pino, type Logger } from 'pino';
import { AdminGroupRepository } from './admin-groups/repository.js';
import { AdminRepository } from './admins/repository.js';
import { ApiBackendRepository } from './api-backends/repository.js';
import { KeyIndex } from './api-users/key-index.js';
import { ApiUserRepository } from './api-users/repository.js';
import type { Config } from './config/schema.js';
import { rewriteMissingSecretFile, secretKeyFile } from './config/secret-key.js';
import { systemClock, type Clock } from './lib/clock.js';
import { LOG_REDACT } from './lib/log-redaction.js';
import { ProxyTrust } from './gateway/proxy-trust.js';
import { createMailer, type Mailer } from './mailer/mailer.js';
import { ResponseCache } from './gateway/response-cache.js';
import { BodyPauseWatch } from './gateway/body-pauses.js';
import { answerStalledBody } from './gateway/client-errors.js';
import { ClientLimitCounts } from './gateway/client-limits.js';
import { Publisher } from './publish/publisher.js';
import { AnalyticsLog } from './analytics/analytics-log.js';
import type { RateLimiter } from './rate-limit/limiter.js';
import { KeptCounts } from './rate-limit/kept-counts.js';
import { MemoryCounterStore } from './rate-limit/memory-store.js';
import { SlidingWindowLimiter } from './rate-limit/sliding-window-limiter.js';
import { openStore, type Db } from './store/db.js';
import { storeSecretKey, UNPROVEN_SECRET, type StoreSecret } from './store/secret-key-check.js';

export interface AppContext {
  readonly config: Config;
  readonly secretKey: string;
  readonly db: Db;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly backends: ApiBackendRepository;
  readonly users: ApiUserRepository;
  readonly admins: AdminRepository;
  /** API scopes and admin groups: what admins who are not superusers may do. */
  readonly adminGroups: AdminGroupRepository;
  readonly publisher: Publisher;
  readonly keyIndex: KeyIndex;
  /** The proxy calls analytics.record(entry); the admin reads its dropped count. */
  readonly analytics: AnalyticsLog;
  readonly rateLimiter: RateLimiter;
  /** Its hourly and daily counts over a restart: `parasol serve` loads them at start and saves them at a graceful stop. */
  readonly keptRateLimits: KeptCounts;
  /** trusted_proxies: the client's IP, host and protocol behind them. */
  readonly proxyTrust: ProxyTrust;
  /** The shared response cache (API Umbrella's Traffic Server); null when cache.max_size_mb is 0. */
  readonly responseCache: ResponseCache | null;
  /**
   * Watches request bodies for a pause longer than proxy.client_body_timeout_ms.
   * The process's, not an app's: a body that stops arriving after a reload
   * retired its app still gets its 408 and loses its connection.
   */
  readonly bodyWatch: BodyPauseWatch;
  /**
   * The SMTP mailer; null without mailer.smtp.host. The process's while the
   * mailer's settings stay the same: a reload does not give up a mail waiting
   * for its retry.
   */
  readonly mailer: Mailer | null;
  /** global_rate_limits' counts per client IP, kept across reloads as rateLimiter's are. */
  readonly clientLimitCounts: ClientLimitCounts;
  /** Closes what the context opened; idempotent. */
  close(): void;
}

export interface ContextOptions {
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** How long the main connection waits for another's write lock (openStore's default when not given). */
  readonly storeBusyTimeoutMs?: number;
}

export function createContext(config: Config, options: ContextOptions = {}): AppContext {
  // The store first: a data_dir whose store is refused (damaged, newer) gets no secret_key made in it.
  const logger = options.logger ?? createLogger(config);
  // Said before and after: migrations on a large store hold the start a while, which would otherwise look like a hang.
  const migration = { from: -1, startedAt: 0 };
  const db = openStore(config.data_dir, {
    busyTimeoutMs: options.storeBusyTimeoutMs,
    migrating: (from, to) => {
      logger.info({ from_version: from, to_version: to }, 'migrating the store to this version of Parasol (a large store may take a minute)');
      Object.assign(migration, { from, startedAt: performance.now() });
    },
  });
  if (migration.from >= 0) logger.info({ from_version: migration.from, ms: Math.round(performance.now() - migration.startedAt) }, 'store migrated');
  // This connection deletes API users and admin accounts: their details are overwritten in the file, not left in free pages.
  db.pragma('secure_delete = ON');
  let storeSecret: StoreSecret;
  try {
    storeSecret = storeSecretKey(db, config);
  } catch (error) {
    db.close();
    throw error;
  }
  const secretKey = storeSecret.secret;
  const backends = new ApiBackendRepository(db);
  const users = new ApiUserRepository(db, secretKey);
  if (storeSecret.prove !== null) logger.warn(UNPROVEN_SECRET);
  const clock = options.clock ?? systemClock;
  const keyIndex = new KeyIndex(users, secretKey, storeSecret.prove);
  const secretFile = new SecretFileWatch(config, secretKey, logger);
  const keyRefresh = setInterval(() => {
    refreshKeys(keyIndex, logger);
    secretFile.check();
  }, KEY_REFRESH_INTERVAL_MS).unref();
  const bodyWatch = bodyWatchOf(config);
  const mailer = createMailer(config, logger);
  const analytics = new AnalyticsLog({ db, dataDir: config.data_dir, config: config.analytics, logger, clock });
  const rateLimitCounts = new MemoryCounterStore(clock);
  let closed = false;
  return {
    config,
    secretKey,
    db,
    logger,
    clock,
    backends,
    users,
    admins: new AdminRepository(db, secretKey),
    adminGroups: new AdminGroupRepository(db),
    publisher: new Publisher(db, backends),
    keyIndex,
    analytics,
    rateLimiter: new SlidingWindowLimiter(rateLimitCounts, clock),
    keptRateLimits: new KeptCounts(db, rateLimitCounts, clock),
    proxyTrust: ProxyTrust.of(config.trusted_proxies, config.real_ip_header),
    responseCache: responseCacheOf(config, clock),
    bodyWatch,
    mailer,
    clientLimitCounts: new ClientLimitCounts(),
    close() {
      if (closed) return;
      closed = true;
      clearInterval(keyRefresh);
      bodyWatch.stop();
      // Ends a delivery under way or waiting for a retry (logged as given up).
      mailer?.close();
      // After the server stopped taking requests: write what is buffered before the store closes.
      analytics.close();
      db.close();
    },
  };
}

/**
 * The context an app built on a reloaded config runs with: the store, the
 * analytics writer, the rate limiters' counts and the response cache stay
 * the running ones (a changed cache size starts an empty cache); what is read
 * from the config is read from the new one. Closing it closes nothing: the
 * context the process started with owns what is shared.
 */
export function withConfig(context: AppContext, config: Config): AppContext {
  const sameCache = config.cache.max_size_mb === context.config.cache.max_size_mb;
  const sameBodyTimeout = config.proxy.client_body_timeout_ms === context.config.proxy.client_body_timeout_ms;
  return {
    ...context,
    config,
    proxyTrust: ProxyTrust.of(config.trusted_proxies, config.real_ip_header),
    responseCache: sameCache ? context.responseCache : responseCacheOf(config, context.clock),
    // A watch replaced by one with the new timeout goes on for the bodies it holds, and stops once it holds none.
    bodyWatch: sameBodyTimeout ? context.bodyWatch : bodyWatchOf(config),
    mailer: sameMailer(context.config, config) ? context.mailer : createMailer(config, context.logger),
    close() {},
  };
}

/**
 * Whether a mailer made for `running` sends as one made for `next` would: the
 * same SMTP settings and From (which defaults to the site name). Other mailer
 * keys (key_expiry_notice_days) are not the mailer's.
 */
function sameMailer(running: Config, next: Config): boolean {
  const from = (config: Config) => config.mailer.from ?? config.site_name;
  return JSON.stringify(running.mailer.smtp) === JSON.stringify(next.mailer.smtp) && from(running) === from(next);
}

function bodyWatchOf(config: Config): BodyPauseWatch {
  return new BodyPauseWatch(config.proxy.client_body_timeout_ms, answerStalledBody);
}

function responseCacheOf(config: Config, clock: Clock): ResponseCache | null {
  return config.cache.max_size_mb === 0 ? null : new ResponseCache(config.cache.max_size_mb * 1024 * 1024, clock);
}

/** How soon a user written by another process (the CLI) is known to the gateway. */
const KEY_REFRESH_INTERVAL_MS = 1000;

function refreshKeys(keyIndex: KeyIndex, logger: Logger): void {
  try {
    keyIndex.refresh();
  } catch (error) {
    // A busy or briefly locked store only delays the refresh to the next tick.
    logger.warn({ err: error }, 'could not refresh API keys from the store');
  }
}

/** The secret_key file kept while Parasol runs: written back from memory, once, when it is found gone. */
class SecretFileWatch {
  private failed = false;

  constructor(
    private readonly config: Config,
    private readonly secret: string,
    private readonly logger: Logger,
  ) {}

  check(): void {
    try {
      if (rewriteMissingSecretFile(this.config, this.secret)) this.logger.warn({ file: secretKeyFile(this.config) }, 'the secret_key file was gone; written back from the running process (back it up with the store)');
      this.failed = false;
    } catch (error) {
      if (!this.failed) this.logger.error({ err: error, file: secretKeyFile(this.config) }, 'the secret_key file is gone and could not be written back; the next start will refuse the store');
      this.failed = true;
    }
  }
}

/** To stdout (a service's log); `fd` 2 for a CLI command, whose stdout is its answer (JSON a script reads). */
export function createLogger(config: Config, fd: 1 | 2 = 1): Logger {
  const options = { level: config.log_level, redact: LOG_REDACT };
  return fd === 1 ? pino(options) : pino(options, pino.destination({ dest: fd, sync: true }));
}
