// `parasol health`, API Umbrella's `api-umbrella health`: asks the gateway
// this config describes for /api-umbrella/v1/health over its plain listener
// on this machine. With a status to wait for it keeps asking through
// connection errors until the timeout (a gateway still starting has not bound
// its port yet); the endpoint itself answers at once.
import type { Config } from '../config/schema.js';
import { ConfigValueError } from '../config/config-error.js';
import { HEALTH_STATUSES, isHealthStatus, type HealthStatus } from '../lib/health-status.js';
import { PARASOL_VERSION } from '../lib/parasol-version.js';
import { UsageError } from './usage-error.js';


/** API Umbrella's default --wait-timeout, in seconds. */
const DEFAULT_WAIT_TIMEOUT_S = 50;
/** Between two attempts while waiting, as API Umbrella's command. */
const RETRY_DELAY_MS = 1000;
/** An attempt that gets no answer in this long is a failed one (a gateway that accepts but never answers). */
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface HealthWait {
  readonly status: HealthStatus;
  readonly timeoutMs: number;
}

export interface HealthResult {
  readonly status: HealthStatus;
  /** The gateway answered 200 with a status other than red. */
  readonly healthy: boolean;
  /** Why there is no status from the gateway (it is then red); null when it answered. */
  readonly problem: string | null;
}

/** The --wait-for-status and --wait-timeout options read, or null when no status is to be waited for. */
export function healthWaitOf(options: { readonly 'wait-for-status'?: string; readonly 'wait-timeout'?: string }): HealthWait | null {
  const { 'wait-for-status': status, 'wait-timeout': timeout } = options;
  if (status === undefined) {
    if (timeout !== undefined) throw new UsageError('--wait-timeout is given with --wait-for-status');
    return null;
  }
  if (!isHealthStatus(status)) throw new UsageError(`--wait-for-status: ${JSON.stringify(status)} is not one of ${HEALTH_STATUSES.join(', ')}`);
  if (timeout !== undefined && !/^\d+$/.test(timeout)) throw new UsageError(`--wait-timeout: ${JSON.stringify(timeout)} is not a whole number of seconds`);
  return { status, timeoutMs: Number(timeout ?? DEFAULT_WAIT_TIMEOUT_S) * 1000 };
}

/** The health URL on this machine: a gateway listening on every interface is asked on loopback. */
export function healthUrlOf(config: Config): URL {
  if (config.listen.port === 0) throw new ConfigValueError(['listen.port'], 'listen.port: 0 lets the system choose the port at start, so parasol health cannot know it; set a port');
  const host = config.listen.host;
  const address = host === null || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return new URL(`http://${address}:${config.listen.port}/api-umbrella/v1/health`);
}

export async function checkHealth(url: URL, wait: HealthWait | null): Promise<HealthResult> {
  const asked = new URL(url);
  if (wait !== null) {
    asked.searchParams.set('wait_for_status', wait.status);
    asked.searchParams.set('wait_timeout', String(wait.timeoutMs / 1000));
  }
  const deadline = performance.now() + (wait?.timeoutMs ?? 0);
  for (;;) {
    const result = await askOnce(asked);
    if (result.problem === null || wait === null || performance.now() >= deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_DELAY_MS, deadline - performance.now())));
  }
}

/** Parasol's own, where fetch would say "node": a ban on that (a scraper's agent) must not make the gateway look down. */
const USER_AGENT = `parasol-health/${PARASOL_VERSION}`;

async function askOnce(url: URL): Promise<HealthResult> {
  const red = (problem: string): HealthResult => ({ status: 'red', healthy: false, problem });
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS), redirect: 'manual', headers: { 'user-agent': USER_AGENT } });
  } catch (error) {
    return red(`no answer from ${url.href} (${reasonOf(error)})`);
  }
  const body = await response.text().catch(() => '');
  // What is not Parasol's (or API Umbrella's) health answer is some other server on the port.
  if (response.headers.get('content-type') !== 'application/json') return red(`${url.href} answered ${response.status} ${response.headers.get('content-type') ?? 'untyped'}, not a health status`);
  const status = statusIn(body);
  if (status === null) return red(`${url.href} answered ${response.status} ${body.slice(0, 200)}`);
  return { status, healthy: response.status === 200 && status !== 'red', problem: null };
}

function statusIn(body: string): HealthStatus | null {
  try {
    const status: unknown = (JSON.parse(body) as { status?: unknown }).status;
    return isHealthStatus(status) ? status : null;
  } catch {
    return null;
  }
}

/** fetch's own message is "fetch failed"; the system's reason is in its cause. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined) return cause.code;
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer in ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}
