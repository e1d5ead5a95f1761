// A load generator child: autocannon at full speed for throughput, or a
// fixed-rate client with microsecond timing for latency (autocannon's
// histogram keeps whole milliseconds). argv: JSON LoadOptions.
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { LoadOptions, LoadResult } from './protocol.js';
import { turnOffPretenuring } from '../../src/lib/pretenuring.js';
import { holdTickEntryShape } from '../../src/lib/tick-shape.js';

// Every bench process holds a nextTick entry and turns V8's pretenuring off, as Parasol does, so none of them
// draws V8's slow nextTick (src/lib/tick-shape.ts) or a literal born old for life (src/lib/pretenuring.ts).
holdTickEntryShape();
turnOffPretenuring();

/**
 * Requests sent in the client's first second are not timed: a fresh process
 * runs unoptimised code and opens its connections then, and on a 2-vCPU
 * machine that showed as 100 ms p99s of the client's own, not the server's.
 */
const WARM_UP_MS = 1000;
const options = JSON.parse(process.argv[2]!) as LoadOptions;
const result = options.rate === undefined ? await fullSpeed(options) : await fixedRate(options, options.rate);
process.send!(result, () => process.exit(0));

async function fullSpeed({ url, connections, seconds, headers }: LoadOptions): Promise<LoadResult> {
  const run = await autocannon({ url, connections, duration: seconds, headers, pipelining: 1 });
  return {
    rps: run.requests.average,
    p50: run.latency.p50,
    p99: run.latency.p99,
    non2xx: run.non2xx,
    errors: run.errors + run.timeouts,
    total: run.requests.total,
    loadedSeconds: seconds,
  };
}

/** Sends `rate` requests per second on a 1 ms tick, whatever the answers' pace, and times each one sent after the warm-up. */
async function fixedRate({ url, connections, seconds, headers }: LoadOptions, rate: number): Promise<LoadResult> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections, pipelining: 1 });
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  const started = performance.now();
  const one = async (timing: boolean) => {
    const at = performance.now();
    try {
      const response = await pool.request({ path: target.pathname + target.search, method: 'GET', headers });
      await response.body.dump();
      if (response.statusCode < 200 || response.statusCode >= 300) non2xx++;
      else if (timing) latencies.push(performance.now() - at);
    } catch {
      errors++;
    }
  };
  const inFlight = new Set<Promise<void>>();
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsed = performance.now() - started;
      if (elapsed >= WARM_UP_MS + seconds * 1000) {
        clearInterval(tick);
        resolve();
        return;
      }
      const timing = elapsed >= WARM_UP_MS;
      for (const due = Math.floor((elapsed / 1000) * rate); sent < due; sent++) {
        const request = one(timing).finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
    }, 1);
  });
  await Promise.all(inFlight);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (quantile: number) => latencies[Math.min(latencies.length - 1, Math.floor(quantile * latencies.length))] ?? 0;
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), non2xx, errors, total: sent, loadedSeconds: WARM_UP_MS / 1000 + seconds };
}
