// A request that finds every connection to its upstream server busy
// (proxy.connections_per_server in use) waits in undici's pool for one, and
// undici's timeouts start only once it has one: without a bound it would wait
// for as long as the requests ahead of it take. It may wait as long as a
// response may take, proxy.response_timeout_ms; then its client gets 504
// GATEWAY_TIMEOUT, as for an upstream that sends no response headers in time.
//
// One sweep watches the requests that may be waiting, rather than a timer per
// request: a request is noted only when the pool said, as it took it, that it
// had no connection left, and the sweep runs only while some are noted.
import { performance } from 'node:perf_hooks';
import { SweepTimer } from '../lib/sweep-timer.js';

export interface QueuedCall {
  /** Still waiting for a connection: not yet sent, nor over. */
  readonly waitingForConnection: boolean;
  /** Waited as long as a response may take: answer the client, and drop the request when a connection comes. */
  queueTimedOut(): void;
}

export class UpstreamQueueWatch {
  /** Calls noted, oldest first, and when each was noted (performance.now()). */
  private calls: QueuedCall[] = [];
  private since: number[] = [];
  private readonly sweeper: SweepTimer;

  constructor(private readonly timeoutMs: number) {
    this.sweeper = new SweepTimer(timeoutMs, () => this.sweep());
  }

  /** Call when the pool took `call` with no connection left for it: it may have to wait for one. */
  watch(call: QueuedCall): void {
    this.calls.push(call);
    this.since.push(performance.now());
    this.sweeper.start();
  }

  stop(): void {
    this.sweeper.stop();
    this.calls = [];
    this.since = [];
  }

  private sweep(): void {
    const now = performance.now();
    const { calls, since } = this;
    let kept = 0;
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index]!;
      // Let go as soon as it has a connection: a saturated pool hands out its connections in turn.
      if (!call.waitingForConnection) continue;
      if (now - since[index]! >= this.timeoutMs) {
        call.queueTimedOut();
        continue;
      }
      calls[kept] = call;
      since[kept] = since[index]!;
      kept++;
    }
    calls.length = kept;
    since.length = kept;
    if (kept === 0) this.stop();
  }
}
