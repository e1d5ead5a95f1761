// Runs the server until SIGTERM/SIGINT: stop accepting, let in-flight
// requests finish (bounded by proxy.shutdown_timeout_ms), close the store.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/schema.js';
import { createContext, type AppContext, type ContextOptions } from './context.js';
import { buildServer } from './server.js';
import { acquireInstanceLock } from './store/instance-lock.js';

const IDLE_SWEEP_MS = 50;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly context: AppContext;
  /** The bound address, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Takes the data_dir lock before the store is opened, so a second start changes nothing. */
export async function startServer(config: Config, options: ContextOptions = {}): Promise<RunningServer> {
  const lock = acquireInstanceLock(config.data_dir);
  let context: AppContext | null = null;
  let app: FastifyInstance;
  let url: string;
  try {
    context = createContext(config, options);
    app = await buildServer(context);
    url = await app.listen({ host: config.listen.host, port: config.listen.port });
  } catch (error) {
    context?.close();
    lock.release();
    throw error;
  }
  const running = context;
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const deadline = setTimeout(() => app.server.closeAllConnections(), config.proxy.shutdown_timeout_ms);
      // Keep-alive connections that finish their request while we stop would otherwise linger until their idle timeout.
      const sweeper = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
        clearInterval(sweeper);
        running.close();
        lock.release();
      }
    })();
    return stopping;
  };
  return { app, context: running, url, stop };
}

/** For `parasol serve`: start, log where, and stop cleanly on a signal. */
export async function serveUntilSignalled(config: Config): Promise<void> {
  const server = await startServer(config);
  const { logger } = server.context;
  logger.info({ url: server.url, data_dir: config.data_dir }, 'Parasol is listening');
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
