// With 1,000,000 entries over 30 days in the store: how long the default
// Filter Logs view takes (14 days, first page, highlights and chart) through
// the reader thread, how long the main event loop was held meanwhile, the
// same view for an admin limited to an API scope (read from the rows), API
// Drilldown, By Location and By Users (a page of users with their details
// from api_users), and how much RSS grows while a CSV of 100,000
// rows streams: newest first (the time index's order), then sorted on a
// field of the row and on a field found by lookup (the IP's country), which
// no index keeps.
//   npm run bench:analytics-queries -- [--data-dir DIR] [--runs 10]
// The data dir is seeded with scripts/seed-analytics when it has fewer rows.
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { entriesCsv } from '../src/analytics/csv.js';
import { parseLogQuery, type LogQuery, type QueryScope } from '../src/analytics/query/log-query.js';
import { parseDrilldownQuery } from '../src/analytics/query/drilldown-prefix.js';
import { ReaderThread } from '../src/analytics/reader-thread.js';
import { openStore, type Db } from '../src/store/db.js';
import { DEFAULT_RULES } from '../src/analytics/query/filter-rules.js';
import { SEEDED_BACKENDS, seedAnalytics, seedLocations, seedUserProfiles } from '../scripts/seed-analytics.js';
import { parseMapQuery } from '../src/analytics/query/map-region.js';
import { parseUsersQuery } from '../src/analytics/query/users-query.js';
import { PAGE_DEFAULTS } from '../src/analytics/routes/view-model.js';

const ENTRIES = 1_000_000;
const DAYS = 30;
const CSV_ROWS = 100_000;

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, runs: { type: 'string', default: '10' } } });
const dataDir = values['data-dir'] ?? join(tmpdir(), 'parasol-analytics-bench');
const runs = Number(values.runs);
/** The pages' views: without a `query`, denied requests hidden. */
const PAGE_VIEW = { rules: DEFAULT_RULES };

const db = openStore(dataDir);
ensureSeeded(db);
const reader = new ReaderThread(dataDir);
const now = Date.now();

const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const timings = await viewTimings({}, runs);
loop.disable();
console.log(`default view (14 days, first page, highlights, chart): median ${ms(median(timings))}, max ${ms(Math.max(...timings))} over ${runs} runs`);
console.log(`  main event loop meanwhile: delay max ${ms(loop.max / 1e6)}, p99 ${ms(loop.percentile(99) / 1e6)}`);
const oneBackend = JSON.stringify([...DEFAULT_RULES, { field: 'api_backend_id', operator: 'equal', value: SEEDED_BACKENDS[0] }]);
const backendTimings = await viewTimings({ query: oneBackend }, runs);
console.log(`the same view filtered on one of ${SEEDED_BACKENDS.length} backends: median ${ms(median(backendTimings))}, max ${ms(Math.max(...backendTimings))}`);
// The seed's /v1/ paths are five of its six: a scope over most of the rows, which the daily rollups cannot answer.
const scopedTimings = await viewTimings({}, runs, [{ host: 'api.example.com', path_prefix: '/v1/' }]);
console.log(`the same view for an admin with analytics in api.example.com/v1/ only: median ${ms(median(scopedTimings))}, max ${ms(Math.max(...scopedTimings))}`);
for (const prefix of ['0/', '1/api.example.com/']) {
  const drilled = await drilldownTimings(prefix, runs);
  console.log(`API Drilldown at ${prefix} (14 days): median ${ms(median(drilled))}, max ${ms(Math.max(...drilled))}`);
}
for (const region of ['world', 'US']) {
  const located = await locationTimings(region, runs);
  console.log(`By Location at ${region} (14 days): median ${ms(median(located))}, max ${ms(Math.max(...located))}`);
}
const byUsers = await byUsersTimings(runs);
console.log(`By Users (14 days, first page with the users' details): median ${ms(median(byUsers))}, max ${ms(Math.max(...byUsers))}`);
for (const order of [undefined, 'response_time:desc', 'request_ip_country:asc']) await csvMemory(order);
await reader.stop();
db.close();

function ensureSeeded(store: Db): void {
  const { n } = store.prepare('SELECT count(*) AS n FROM analytics_logs').get() as { n: number };
  if (n >= ENTRIES) {
    // Seeded before By Location existed.
    if (store.prepare('SELECT 1 FROM analytics_ip_locations LIMIT 1').get() === undefined) seedLocations(store);
    // Seeded before By Users showed the users' details.
    if (store.prepare('SELECT 1 FROM api_users LIMIT 1').get() === undefined) seedUserProfiles(store);
    return;
  }
  console.log(`seeding ${ENTRIES} entries over ${DAYS} days into ${dataDir} (once)…`);
  store.exec('DELETE FROM analytics_requests; DELETE FROM analytics_contexts; DELETE FROM analytics_user_days; DELETE FROM analytics_ip_days; DELETE FROM analytics_ip_locations;');
  seedAnalytics(store, { count: ENTRIES, days: DAYS, endAt: Date.now() });
  console.log('(seeding grew this process: run again for a clean RSS figure)');
}

function locationTimings(region: string, count: number): Promise<number[]> {
  return timed(count, async () => {
    const parsed = parseMapQuery({ region }, now, PAGE_VIEW);
    if (!parsed.ok) throw new Error(parsed.error);
    const located = await reader.locations(parsed.query);
    return `${located.regions.length} locations, the first ${located.regions[0]?.name} with ${located.regions[0]?.hits} hits`;
  });
}

/** By Users as its page reads it: the view's users in its order, the page's with their details. */
function byUsersTimings(count: number): Promise<number[]> {
  return timed(count, async () => {
    const parsed = parseUsersQuery({}, now, PAGE_DEFAULTS);
    if (!parsed.ok) throw new Error(parsed.error);
    const { total, data } = await reader.usersPage(parsed.query);
    return `${total} users, ${data.length} on the first page, the first ${data[0]?.email} (${data[0]?.first_name} ${data[0]?.last_name}) with ${data[0]?.hits} hits`;
  });
}

/** `scopes`: the view of an admin who is not a superuser. */
function viewTimings(params: Record<string, string>, count: number, scopes?: readonly QueryScope[]): Promise<number[]> {
  return timed(count, async () => {
    const parsed = mustParse(params);
    const query = scopes === undefined ? parsed : { ...parsed, scopes };
    const [summary, page] = await Promise.all([reader.summary(query), reader.entries(query)]);
    return `${summary.hits} hits, ${summary.unique_users} users, ${summary.unique_ips} IPs, ${page.length} rows on the first page`;
  });
}

/** `count` timed runs of `run`, which answers what to print of the first. */
async function timed(count: number, run: () => Promise<string>): Promise<number[]> {
  const timings: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    const first = await run();
    timings.push(performance.now() - started);
    if (index === 0) console.log(`  ${first}`);
  }
  return timings;
}

function drilldownTimings(prefix: string, count: number): Promise<number[]> {
  return timed(count, async () => {
    const parsed = parseDrilldownQuery({ prefix }, now, PAGE_VIEW);
    if (!parsed.ok) throw new Error(parsed.error);
    const drilled = await reader.drilldown(parsed.query);
    return `${drilled.results.length} paths listed, the first ${drilled.results[0]?.path} with ${drilled.results[0]?.hits} hits`;
  });
}

async function csvMemory(order?: string): Promise<void> {
  // The newest 100,000 entries: the seed spreads them evenly over the days.
  const span = Math.round((DAYS * 86_400_000 * CSV_ROWS) / ENTRIES);
  const { n: last } = db.prepare('SELECT max(request_at) AS n FROM analytics_logs').get() as { n: number };
  const query = mustParse({ start_at: new Date(last - span + 1).toISOString(), end_at: new Date(last).toISOString(), query: '[]', ...(order === undefined ? {} : { order }) });
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  let rows = -1;
  let bytes = 0;
  const started = performance.now();
  const sink = new Writable({
    // Like a socket, which encodes the CSV's text as it sends it.
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      bytes += Buffer.byteLength(chunk);
      for (let at = chunk.indexOf('\n'); at !== -1; at = chunk.indexOf('\n', at + 1)) rows++;
      peak = Math.max(peak, process.memoryUsage().rss);
      // A client that reads at its own pace: hand control back to the event loop.
      setImmediate(done);
    },
  });
  await pipeline(await entriesCsv(reader, query), sink);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `CSV${order === undefined ? '' : ` by ${order}`}: ${rows} rows, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s; RSS growth ${((peak - before) / 1e6).toFixed(1)} MB (before ${(before / 1e6).toFixed(0)} MB, peak ${(peak / 1e6).toFixed(0)} MB)`,
  );
}

function mustParse(params: Record<string, string>): LogQuery {
  const parsed = parseLogQuery(params, now, PAGE_VIEW);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.query;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}
