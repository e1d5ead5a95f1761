// A slip in one part — a promise nobody awaited that rejects, a timer or
// event callback that throws — must not take the whole gateway down with the
// requests in flight and the analytics it has accepted but not yet written.
// Node's default for both is to end the process at once. Once the throw has
// reached the event loop, the part's own work has unwound (the store's
// transactions roll back), so the error is logged and serving goes on.
import type { Logger } from 'pino';

/** Installs the guards for a serving process; the function returned removes them. */
export function guardProcess(logger: Logger): () => void {
  const onRejection = (reason: unknown): void => logger.error({ err: reason }, 'unhandled promise rejection; still serving');
  const onException = (error: Error): void => logger.error({ err: error }, 'uncaught exception; still serving');
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
