// How much memory the in-memory rate-limit counters take when a flood of
// distinct client IPs arrives within one 1 s window, and whether it is given
// back once the window has ended. Time comes from a ManualClock, so the whole
// flood lands inside one window however long the machine takes.
//
//   npm run bench:rate-limit-memory          (needs node --expose-gc; the script passes it)
import type { RateLimit } from '../src/api-backends/model.js';
import { DEFAULT_RATE_LIMITS } from '../src/config/schema.js';
import { ManualClock } from '../src/lib/clock.js';
import { MemoryCounterStore } from '../src/rate-limit/memory-store.js';
import { SlidingWindowLimiter } from '../src/rate-limit/sliding-window-limiter.js';

const CLIENTS = 1_000_000;
const RSS_BUDGET_MB = 200;
const ONE_SECOND_BY_IP: readonly RateLimit[] = [{ duration: 1000, limit_by: 'ip', limit: 50, response_headers: false }];

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

function settledMb(): { rss: number; heap: number } {
  gc!();
  gc!();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss: rss / 1_048_576, heap: heapUsed / 1_048_576 };
}

/** The n-th distinct IPv4 address in 10.0.0.0/8. */
function clientIp(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** Floods one window; answers whether the RSS stayed within `budgetMb` (if given) and the window's counters went with it. */
function flood(name: string, limits: readonly RateLimit[], budgetMb: number | null): boolean {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryCounterStore(clock);
  const limiter = new SlidingWindowLimiter(store, clock);
  const before = settledMb();
  const started = performance.now();
  for (let n = 0; n < CLIENTS; n += 1) {
    // Spread over the first 999 ms of the window.
    if (n % 1002 === 1001) clock.advance(1);
    limiter.check({ bucket: 'api.example.com', apiKeyPrefix: null, ip: clientIp(n), limits });
  }
  const elapsedMs = performance.now() - started;
  const during = settledMb();
  const counters = store.size;
  // Past the end of the window and of its use as the next one's previous window.
  clock.advance(2 * Math.max(...limits.map((limit) => limit.duration)));
  limiter.check({ bucket: 'api.example.com', apiKeyPrefix: null, ip: '192.0.2.1', limits });
  const after = settledMb();
  const growth = during.rss - before.rss;
  const ok = (budgetMb === null || growth < budgetMb) && store.size === limits.length;
  console.log(
    JSON.stringify({
      case: name,
      clients: CLIENTS,
      checks_per_second: Math.round(CLIENTS / (elapsedMs / 1000)),
      counters_in_window: counters,
      rss_growth_mb: Math.round(growth),
      heap_growth_mb: Math.round(during.heap - before.heap),
      counters_after_window: store.size - limits.length,
      heap_after_window_mb: Math.round(after.heap - before.heap),
      ok,
    }),
  );
  return ok;
}

// The budget is for one limit by IP; the default limits keep five counters per keyless client, so
// there the cap evicts the oldest windows and the figure is reported only.
const results = [flood('1 s by IP', ONE_SECOND_BY_IP, RSS_BUDGET_MB), flood('default limits, no key', DEFAULT_RATE_LIMITS, null)];
if (!results.every(Boolean)) {
  console.error(`RSS grew by ${RSS_BUDGET_MB} MB or more, or expired counters were kept`);
  process.exitCode = 1;
}
