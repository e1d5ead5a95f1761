// Upstream failures in the log, as nginx's error log has them in front of API
// Umbrella: which backend, which server, what went wrong and what the client
// got. A dead server under load fails every request sent to it, so each
// server's first failure is logged at once and the ones after it are
// counted; when LOG_EVERY_MS has passed, the count is logged (with the last
// of them) if there were any, and so on while they go on. A burst that ends
// inside a window is still told of in full, a window later.
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';

const LOG_EVERY_MS = 10_000;

type Answered = 'BAD_GATEWAY' | 'GATEWAY_TIMEOUT' | 'INTERNAL_SERVER_ERROR' | 'cut short';

/** Kept with each upstream server (upstreams.ts), which lives as long as a backend names it. */
export interface FailureCount {
  /** Failures since the last one logged. */
  unlogged: number;
  /** The last of them, told of when the count is logged. */
  last: { readonly backendId: string; readonly error: string; readonly answered: Answered } | null;
  loggedAt: number;
  /** Set while failures wait for the end of the window to be logged. */
  windowEnd: NodeJS.Timeout | null;
}

export function newFailureCount(): FailureCount {
  return { unlogged: 0, last: null, loggedAt: -Infinity, windowEnd: null };
}

export interface UpstreamFailure {
  readonly backendId: string;
  readonly server: { readonly origin: string; readonly failures: FailureCount };
  readonly error: Error;
  /** What the client got: the gateway's error, or a response cut short. */
  readonly answered: Answered;
}

export class UpstreamFailureLog {
  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly logEveryMs = LOG_EVERY_MS,
  ) {}

  record({ backendId, server, error, answered }: UpstreamFailure): void {
    const count = server.failures;
    count.unlogged++;
    count.last = { backendId, error: (error as { code?: string }).code ?? error.name, answered };
    const sinceLogged = this.clock.now() - count.loggedAt;
    if (sinceLogged >= this.logEveryMs) this.logCount(server.origin, count);
    else count.windowEnd ??= setTimeout(() => this.logCount(server.origin, count), this.logEveryMs - sinceLogged).unref();
  }

  private logCount(origin: string, count: FailureCount): void {
    if (count.windowEnd !== null) clearTimeout(count.windowEnd);
    count.windowEnd = null;
    if (count.unlogged === 0 || count.last === null) return;
    const { backendId, error, answered } = count.last;
    this.logger.warn({ api_backend_id: backendId, server: origin, error, answered, failures: count.unlogged }, 'upstream request failed');
    count.unlogged = 0;
    count.loggedAt = this.clock.now();
  }
}
