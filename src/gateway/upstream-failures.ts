// Upstream failures in the log, as nginx's error log has them in front of API
// Umbrella: which backend, which server, what went wrong and what the client
// got. A dead server under load fails every request sent to it, so each
// server's failures are logged at once, then at most once a LOG_EVERY_MS
// with how many there were since.
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';

const LOG_EVERY_MS = 10_000;

/** Kept with each upstream server (upstreams.ts), which lives as long as a backend names it. */
export interface FailureCount {
  /** Failures since the last one logged. */
  unlogged: number;
  loggedAt: number;
}

export function newFailureCount(): FailureCount {
  return { unlogged: 0, loggedAt: -Infinity };
}

export interface UpstreamFailure {
  readonly backendId: string;
  readonly server: { readonly origin: string; readonly failures: FailureCount };
  readonly error: Error;
  /** What the client got: the gateway's error, or a response cut short. */
  readonly answered: 'BAD_GATEWAY' | 'GATEWAY_TIMEOUT' | 'INTERNAL_SERVER_ERROR' | 'cut short';
}

export class UpstreamFailureLog {
  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  record({ backendId, server, error, answered }: UpstreamFailure): void {
    const count = server.failures;
    count.unlogged++;
    const now = this.clock.now();
    if (now - count.loggedAt < LOG_EVERY_MS) return;
    const code = (error as { code?: string }).code ?? error.name;
    this.logger.warn({ api_backend_id: backendId, server: server.origin, error: code, answered, failures: count.unlogged }, 'upstream request failed');
    count.unlogged = 0;
    count.loggedAt = now;
  }
}
