// Runs the server until SIGTERM/SIGINT: stop accepting, let in-flight
// requests finish (bounded by proxy.shutdown_timeout_ms), close the store.
// Plain HTTP on listen.port; HTTPS too on listen.https_port when set, its
// certificate picked up again when renewed (tls-certificate-reload.ts).
// SIGHUP reads the config again and applies it without closing the
// listeners (live-app.ts).
import type { Server as HttpServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { ConfigValueError, type LoadedConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { readTlsFiles, tlsPairKeys, tlsPairsOf } from './config/tls-files.js';
import { createContext, type AppContext, type ContextOptions } from './context.js';
import { openHttpListener, type HttpListener, type ListeningServer } from './http-listener.js';
import { LiveApp, type ReloadOutcome } from './live-app.js';
import { listenError, listenHostProblem } from './listen-address.js';
import { turnOffPretenuring } from './lib/pretenuring.js';
import { guardProcess } from './lib/process-guards.js';
import { Signups } from './signup/signups.js';
import { acquireInstanceLock } from './store/instance-lock.js';
import { CertificateReloader, fingerprintOf, type CertificateInUse } from './tls-certificate-reload.js';
import { openTlsListener, type TlsListener, type TlsListenOptions } from './tls-listener.js';
import { PARASOL_VERSION } from './lib/parasol-version.js';
import { warnAtStart } from './start-up-warnings.js';

const IDLE_SWEEP_MS = 50;
/**
 * At a stop, how long after the apps have closed (and answered what they cut
 * off) a connection still open may take to end before it is closed: long
 * enough for those answers to leave, short against proxy.shutdown_timeout_ms.
 */
const CUT_OFF_GRACE_MS = 250;

export interface RunningServer {
  /** The app answering requests now: a reload replaces it. */
  readonly app: FastifyInstance;
  /** That app's context: the reloaded config, with the store and the rest of the process's own. */
  readonly context: AppContext;
  /** The plain-HTTP listener's server: it outlives the apps, whose listeners it calls (app-switch.ts). */
  readonly server: HttpServer;
  /** The bound address, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  /** The HTTPS listener's address, e.g. https://127.0.0.1:8443; null without listen.https_port. */
  readonly httpsUrl: string | null;
  /** Looks at the TLS certificates' files now rather than at the next minute's check; nothing without HTTPS. */
  checkCertificates(): void;
  /** Applies a config read again (SIGHUP); throws, keeping the running app, when no app can be built on it. */
  reload(config: Config): Promise<ReloadOutcome>;
  stop(): Promise<void>;
}

export interface StartOptions extends ContextOptions {
  /** How often the HTTPS certificate's files are looked at for a renewal (tests shorten it). */
  readonly certificateCheckMs?: number;
}

/**
 * A serving process's wait for another connection's write lock, which stalls
 * the proxy sharing its thread (see StoreOptions): a CLI command, with no
 * proxy to stall, keeps openStore's 5 s. Not much shorter: the analytics
 * writer holds the lock for a batch's milliseconds of CPU, but it runs at idle
 * priority, and on a machine the proxy keeps busy those can take far longer;
 * a wait too short would answer admins "busy" under load.
 */
const SERVING_STORE_BUSY_MS = 1000;

/** Takes the data_dir lock before the store is opened, so a second start changes nothing. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  // Before the store and the proxy run: V8 must not decide, in a busy start, that a per-request literal's objects live long (pretenuring.ts).
  turnOffPretenuring();
  const lock = acquireInstanceLock(config.data_dir);
  let context: AppContext | null = null;
  let live: LiveApp | null = null;
  let http: HttpListener | null = null;
  let tls: TlsListener | null = null;
  let reloader: CertificateReloader | null = null;
  try {
    // Before the store and its secret are made: a first start that cannot listen leaves nothing behind.
    const hostProblem = await listenHostProblem(config.listen.host);
    if (hostProblem !== null) throw hostProblem;
    context = createContext(config, { storeBusyTimeoutMs: SERVING_STORE_BUSY_MS, ...options });
    keepRateLimits(context, 'load');
    // Started now rather than by the first entry, which would wait for it: an entry is queryable within a second from the first one on, and pruning runs 5 s after the start.
    context.analytics.start();
    const started = await LiveApp.start(context);
    live = started;
    resumeKeyDeliveries(context);
    const { host, port } = config.listen;
    const serve = (server: ListeningServer) => started.serveOn(server);
    http = await openHttpListener({ host, port, maxHeaderSize: config.proxy.max_header_size, serve }).catch((error: unknown) => {
      throw listenError(error, 'listen.port', host, port);
    });
    const https = await openHttpsListener(config, serve).catch((error: unknown) => {
      throw listenError(error, 'listen.https_port', host, config.listen.https_port!);
    });
    if (https !== null) {
      tls = https.listener;
      const reloadOptions = { logger: context.logger, clock: context.clock, checkEveryMs: options.certificateCheckMs };
      reloader = new CertificateReloader(tls, https.inUse, reloadOptions);
    }
  } catch (error) {
    await tls?.close();
    await http?.close();
    await live?.close();
    context?.close();
    lock.release();
    throw error;
  }
  const root = context;
  const apps = live;
  const listeners = tls === null ? [http] : [http, tls];
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const servers = listeners.map((listener) => listener.server);
      const drainEnds = performance.now() + apps.context.config.proxy.shutdown_timeout_ms;
      // Keep-alive connections that finish their request while we stop would otherwise linger until their idle timeout.
      const sweeper = setInterval(() => servers.forEach((server) => server.closeIdleConnections()), IDLE_SWEEP_MS);
      let cutOff: NodeJS.Timeout | undefined;
      reloader?.stop();
      try {
        // Both listeners stop accepting at once; each resolves once its last connection has ended.
        const connectionsEnded = Promise.all(listeners.map((listener) => listener.close()));
        // The app answers 503 from now on and closes open upgrades. Once proxy.shutdown_timeout_ms
        // has passed it closes as a reload's retired app does (live-app.ts): its upstream pools go,
        // so a request still waiting on an upstream is answered 502 in its format (and logged and
        // recorded so), and one whose answer had begun loses its connection.
        await apps.close();
        // Then the connections still open close (one whose request is still arriving has until
        // proxy.shutdown_timeout_ms, as the requests in flight), but only CUT_OFF_GRACE_MS after the
        // apps closed: the answers they gave what they cut off go out first.
        const closeAllIn = Math.max(drainEnds - performance.now(), CUT_OFF_GRACE_MS);
        cutOff = setTimeout(() => servers.forEach((server) => server.closeAllConnections()), closeAllIn);
        await connectionsEnded;
      } finally {
        clearTimeout(cutOff);
        clearInterval(sweeper);
        // No request is counted any more.
        keepRateLimits(root, 'save');
        root.close();
        lock.release();
      }
    })();
    return stopping;
  };
  return {
    get app() {
      return apps.app;
    },
    get context() {
      return apps.context;
    },
    server: http.server,
    url: http.url,
    httpsUrl: tls?.url ?? null,
    checkCertificates: () => reloader?.check(),
    reload: (next) => apps.reload(next),
    stop,
  };
}

/** Keys sent by email only whose mail the last stop cut short get a new key, mailed (signups.ts); a store that fails it is logged. */
function resumeKeyDeliveries(context: AppContext): void {
  try {
    const resumed = new Signups(context, context.mailer).resumeKeyDeliveries();
    if (resumed > 0) context.logger.warn({ count: resumed }, 'keys whose mail a stop cut short: new keys mailed');
  } catch (error) {
    context.logger.error({ err: error }, 'keys whose mail a stop cut short could not be mailed again');
  }
}

/**
 * Loads (at start) or saves (at a graceful stop) the hourly and daily
 * rate-limit counts (kept-counts.ts). A store that fails it costs those
 * counts only: logged, and the start or stop goes on.
 */
function keepRateLimits(context: AppContext, step: 'load' | 'save'): void {
  try {
    const counts = step === 'load' ? context.keptRateLimits.load() : context.keptRateLimits.save();
    if (counts > 0) context.logger.info({ counts }, step === 'load' ? 'rate-limit counts read back' : 'rate-limit counts kept for the next start');
  } catch (error) {
    context.logger.error({ err: error }, step === 'load' ? 'rate-limit counts could not be read back' : 'rate-limit counts could not be kept');
  }
}

interface HttpsListener {
  readonly listener: TlsListener;
  /** In the listener's order. */
  readonly inUse: CertificateInUse[];
}

/** null without listen.https_port. The files were checked when the config was loaded; this reads them again in case they changed since. */
async function openHttpsListener(config: Config, serve: TlsListenOptions['serve']): Promise<HttpsListener | null> {
  if (config.listen.https_port === null) return null;
  const inUse = tlsPairsOf(config.tls).map((pair) => {
    const fingerprint = fingerprintOf(pair);
    const read = readTlsFiles(pair);
    if (!read.ok) throw new ConfigValueError(tlsPairKeys(pair), read.problem);
    return { pair, files: read.files, fingerprint };
  });
  const options = {
    host: config.listen.host,
    port: config.listen.https_port,
    maxHeaderSize: config.proxy.max_header_size,
    strictTransportSecurity: config.tls.http_strict_transport_security?.trim() ?? null,
    serve,
  };
  return { listener: await openTlsListener(inUse.map((each) => each.files), options), inUse };
}

/** For `parasol serve`: start, log where, stop cleanly on SIGTERM or SIGINT, reload on SIGHUP. */
export async function serveUntilSignalled(loaded: LoadedConfig): Promise<void> {
  const { config } = loaded;
  // Node's default for SIGHUP is to die at once, dropping requests in flight; for Parasol, as for nginx
  // and API Umbrella, it means a reload (and a closed terminal must not take the gateway down). Taken
  // before the start: the pid file names this process from the start on, and a reload (parasol reload,
  // systemctl reload) sent during a slow start (migrations) is applied once it is up.
  let started: RunningServer | null = null;
  let reloadWhenStarted = false;
  process.on('SIGHUP', () => {
    if (started === null) reloadWhenStarted = true;
    else void reloadOnSignal(started, loaded);
  });
  const server = await startServer(config);
  started = server;
  if (reloadWhenStarted) void reloadOnSignal(server, loaded);
  const { logger } = server.context;
  guardProcess(logger);
  const urls = server.httpsUrl === null ? { url: server.url } : { url: server.url, https_url: server.httpsUrl };
  logger.info({ ...urls, data_dir: config.data_dir, version: PARASOL_VERSION }, 'Parasol is listening');
  warnAtStart(server.context, server.url);
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    // One stop is enough: npm forwards a terminal's Ctrl-C that the process group already got,
    // and a repeat must not cut the graceful stop short (it is bounded by shutdown_timeout_ms).
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * SIGHUP: the TLS certificates looked at again, and the config read again
 * and applied (backends, users and admins live in the store and need no
 * reload). A config that cannot be read, or an app that cannot be built on
 * it, leaves the running one serving.
 */
async function reloadOnSignal(server: RunningServer, loaded: LoadedConfig): Promise<void> {
  const { logger } = server.context;
  logger.info({ signal: 'SIGHUP' }, 'SIGHUP: reading the config again and looking at the TLS certificates');
  server.checkCertificates();
  try {
    const { applied, needRestart } = await server.reload(loaded.reload().config);
    logger.info({ changed: applied }, applied.length === 0 ? 'config reloaded: nothing to apply' : 'config reloaded');
    if (needRestart.length > 0) logger.warn({ keys: needRestart }, `config keys read at start only, still at their running values: restart Parasol to apply ${needRestart.join(', ')}`);
  } catch (error) {
    logger.error(`config not reloaded, the running one stays: ${error instanceof Error ? error.message : String(error)}`);
  }
}
