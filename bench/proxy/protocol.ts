// Messages between the bench orchestrator and its child processes (one per
// server and per load generator, so none shares an event loop with another).
import { threadBusyMicros } from './machine-cpu.js';

/** A server child's first message. */
export interface Ready {
  readonly ready: { readonly port: number; readonly apiKey?: string; readonly keys?: readonly string[]; readonly unlimitedApiKey?: string; readonly dataDir?: string };
}

/** What a load child measured. */
export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
  /** Requests sent, a warm-up's included: the server's CPU time over the run is divided by it. */
  readonly total: number;
  /** How long the load ran, a warm-up included. */
  readonly loadedSeconds: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly headers: Record<string, string>;
  /** Requests per second for a fixed-rate run; absent: as fast as the target answers. */
  readonly rate?: number;
}

/** Parent → Parasol child: publish a change now (the load must not notice). */
export interface PublishRequest {
  readonly publish: number;
}

/** Parent → any server child: how much memory and CPU time it has used. */
export interface UsageRequest {
  readonly usage: true;
}

export interface Usage {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  /** C++ objects tied to JS ones, typed arrays' buffers among them. */
  readonly external: number;
  /** CPU time (user + system) since the process started, in microseconds. */
  readonly cpuMicros: number;
  /** The same for the main thread alone (NaN off Linux). */
  readonly mainThreadCpuMicros: number;
  /** A Parasol's analytics: entries not yet stored, and dropped since start (a full buffer). */
  readonly analytics?: AnalyticsUsage;
}

export interface AnalyticsUsage {
  readonly pending: number;
  readonly dropped: number;
}

export interface UsageReport {
  readonly usage: Usage;
}

/** Answers usage requests; every server child installs it, a Parasol with its analytics figures. */
export function answerUsageRequests(analytics?: () => AnalyticsUsage): void {
  process.on('message', (message: UsageRequest) => {
    if (!('usage' in message)) return;
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    const { user, system } = process.cpuUsage();
    process.send!({ usage: { rss, heapUsed, heapTotal, external, cpuMicros: user + system, mainThreadCpuMicros: threadBusyMicros(), analytics: analytics?.() } } satisfies UsageReport);
  });
}
