// `npm run bench:memory`: Parasol's resident memory with 100,000 API users
// and 1,000 published backends, after 100,000 requests over 10,000 distinct
// keys. The bar is 250 MB. Parasol, the upstream and the load each run in
// their own process; the figure is Parasol's RSS alone.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { startServerChild, usageOf } from './proxy/children.js';
import type { Scenario } from './proxy/parasol.js';

const USERS = 100_000;
const BACKENDS = 1_000;
const KEYS = 10_000;
const REQUESTS = 100_000;
const BAR_BYTES = 250 * 1024 * 1024;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const upstream = await startServerChild('upstream.ts');
console.log(`seeding ${USERS} users and ${BACKENDS} backends …`);
// The /bench/ backend counts as one of the thousand.
const seedScenario: Scenario = { users: USERS, extraBackends: BACKENDS - 1, keysToReturn: KEYS, keepData: true };
const seeder = await startServerChild('parasol.ts', [String(upstream.port), JSON.stringify(seedScenario)]);
const { keys, dataDir } = seeder;
await seeder.stop();

// Measured as operators run it: a fresh process on a store that already holds them.
console.log('starting Parasol on the seeded store …');
const started = Date.now();
const servingScenario: Scenario = { dataDir, config: JSON.parse(process.env.MEMORY_CONFIG ?? '{}') as Record<string, unknown> };
const parasol = await startServerChild('parasol.ts', [String(upstream.port), JSON.stringify(servingScenario)]);
const idle = await usageOf(parasol);
console.log(`  ready in ${((Date.now() - started) / 1000).toFixed(1)} s, RSS ${mb(idle.rss)} MB (main thread's heap: ${mb(idle.heapUsed)} MB used of ${mb(idle.heapTotal)} MB)`);

console.log(`warming up: ${REQUESTS} requests over ${KEYS} keys …`);
const load = fork(new URL('./proxy/memory-load.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'] });
load.send({ url: parasol.url, keys, backends: BACKENDS - 1, requests: REQUESTS, connections: 50 });
const [{ statuses }] = (await once(load, 'message')) as [{ statuses: Record<string, number> }];
const warm = await usageOf(parasol);
console.log(`  statuses ${JSON.stringify(statuses)}`);
console.log(`  RSS ${mb(warm.rss)} MB (main thread's heap: ${mb(warm.heapUsed)} MB used of ${mb(warm.heapTotal)} MB; outside the heap: ${mb(warm.external)} MB)`);

const passed = warm.rss < BAR_BYTES;
const results = {
  date: new Date().toISOString(),
  users: USERS,
  backends: BACKENDS,
  keys: KEYS,
  requests: REQUESTS,
  statuses,
  rss_mb_after_setup: mb(idle.rss),
  rss_mb_after_warmup: mb(warm.rss),
  heap_used_mb_after_warmup: mb(warm.heapUsed),
  bar_mb: mb(BAR_BYTES),
  passed,
};
writeFileSync(new URL('./memory-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
console.log(`${passed ? 'PASS' : 'FAIL'}  RSS ${mb(warm.rss)} MB < ${mb(BAR_BYTES)} MB · written to bench/memory-results.json`);
await Promise.all([parasol.stop(), upstream.stop()]);
// The seeder's temp dir: its config and the store served here.
rmSync(dirname(dataDir!), { recursive: true, force: true });
process.exitCode = passed ? 0 : 1;
