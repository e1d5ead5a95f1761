// Fills a data dir's analytics log with synthetic traffic for benchmarks and
// demos: `npm run seed:analytics -- --data-dir DIR [--count 1000000] [--days 30]`.
// Deterministic: the same arguments give the same rows.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { AnalyticsWriter } from '../src/analytics/writer.js';
import type { AnalyticsEntry } from '../src/analytics/log-entry.js';
import { openStore, type Db } from '../src/store/db.js';

const DAY_MS = 86_400_000;
const BATCH = 10_000;
const USERS = 2_000;
const ANONYMOUS_IPS = 20_000;
export const SEEDED_BACKENDS = ['backend-weather', 'backend-energy', 'backend-transit', 'backend-census', 'backend-maps'];
const PATHS = ['/v1/forecast', '/v1/stations', '/v2/prices', '/v1/routes', '/v1/population', '/v1/tiles'];
const AGENTS = ['curl/8.5.0', 'python-requests/2.31.0', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0', 'okhttp/4.12.0'];
/** Where the seeded IPs are (their addresses are private, so no GeoIP database would place them): country, state code and name, city, latitude, longitude. */
const PLACES: readonly (readonly [string, string, string, string, number, number])[] = [
  ['US', 'CO', 'Colorado', 'Golden', 39.7555, -105.2211],
  ['US', 'CO', 'Colorado', 'Denver', 39.7392, -104.9903],
  ['US', 'CA', 'California', 'San Diego', 32.7157, -117.1611],
  ['US', 'NY', 'New York', 'New York', 40.7128, -74.006],
  ['US', 'TX', 'Texas', 'Austin', 30.2672, -97.7431],
  ['CA', 'ON', 'Ontario', 'Toronto', 43.6532, -79.3832],
  ['GB', 'ENG', 'England', 'London', 51.5072, -0.1276],
  ['DE', 'BE', 'Berlin', 'Berlin', 52.52, 13.405],
  ['IN', 'KA', 'Karnataka', 'Bengaluru', 12.9716, 77.5946],
  ['BR', 'SP', 'São Paulo', 'São Paulo', -23.5558, -46.6396],
];

export interface SeedOptions {
  readonly count: number;
  readonly days: number;
  /** The newest entry is just before this instant. */
  readonly endAt: number;
}

/** Writes `count` entries spread evenly over the `days` before endAt, oldest first. */
export function seedAnalytics(db: Db, options: SeedOptions): void {
  const writer = new AnalyticsWriter(db);
  const random = mulberry32(42);
  const span = options.days * DAY_MS;
  const startAt = options.endAt - span;
  for (let first = 0; first < options.count; first += BATCH) {
    const batch: AnalyticsEntry[] = [];
    for (let i = first; i < Math.min(first + BATCH, options.count); i++) {
      batch.push(syntheticEntry(i, Math.floor(startAt + (i * span) / options.count), random));
    }
    writer.writeEntries(batch);
  }
  seedLocations(db);
  seedUserProfiles(db);
}

/**
 * Gives every seeded user the record By Users joins for its details (an
 * API user as signup makes one, its key unusable), so that reading them is
 * measured; users already there are kept.
 */
export function seedUserProfiles(db: Db): void {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO api_users (id, api_key_prefix, api_key_hash, api_key_preview, email, first_name, last_name, website,
       use_description, registration_source, created_at, updated_at)
     VALUES (@id, @id, x'00', @preview, @email, 'Seeded', @last_name, 'https://example.org', @use_description, 'web', @created_at, @created_at)`,
  );
  db.transaction(() => {
    for (let user = 0; user < USERS; user++) {
      insert.run({
        id: seededUserId(user),
        preview: seededKeyPreview(user),
        email: seededEmail(user),
        last_name: `User ${user}`,
        // About as long as migration 021 counts them on average.
        use_description: `Seeded user ${user} calls the weather, energy and transit APIs from a dashboard that refreshes every few minutes.`,
        created_at: new Date(Date.UTC(2025, 0, 1) + user * 60_000).toISOString(),
      });
    }
  })();
}

function seededUserId(user: number): string {
  return `user-${user.toString().padStart(5, '0')}`;
}

function seededEmail(user: number): string {
  return `user${user}@example.com`;
}

function seededKeyPreview(user: number): string {
  return `k${user.toString(36).padStart(4, '0')}…`;
}

/** Places every seeded IP, most of them in the United States. */
export function seedLocations(db: Db): void {
  const random = mulberry32(7);
  const insert = db.prepare('INSERT OR REPLACE INTO analytics_ip_locations VALUES (?, ?, ?, ?, ?, ?, ?)');
  const ips = db.prepare('SELECT DISTINCT request_ip FROM analytics_ip_days ORDER BY request_ip').pluck().all() as string[];
  db.transaction(() => {
    for (const ip of ips) insert.run(ip, ...PLACES[Math.floor(PLACES.length * random() ** 2)]!);
  })();
}

function syntheticEntry(index: number, requestAt: number, random: () => number): AnalyticsEntry {
  // A few heavy users and a long tail, like real API traffic.
  const user = Math.floor(USERS * random() ** 3);
  const roll = random();
  const denied = roll < 0.06 ? 'api_key_missing' : roll < 0.08 ? 'api_key_invalid' : roll < 0.1 ? 'over_rate_limit' : null;
  const known = denied === null || denied === 'over_rate_limit';
  const ip = known ? `10.${user % 200}.${Math.floor(user / 200)}.${1 + Math.floor(random() * 3)}` : `192.0.${Math.floor(random() * ANONYMOUS_IPS) % 256}.${Math.floor(random() * 80)}`;
  const path = PATHS[index % PATHS.length]!;
  const responseTime = Math.round(5 + 200 * random() ** 4);
  const upstreamTime = denied === null ? Math.max(0, responseTime - 1) : null;
  return {
    request_id: `seed-${index.toString(36)}`,
    request_at: requestAt,
    request_method: random() < 0.9 ? 'GET' : 'POST',
    request_scheme: 'https',
    request_host: 'api.example.com',
    request_path: path,
    request_url_query: known ? `api_key=[REDACTED]&page=${index % 7}` : `page=${index % 7}`,
    request_ip: ip,
    request_user_agent: AGENTS[user % AGENTS.length]!,
    request_referer: null,
    // The browser among the agents calls from a web page.
    request_origin: AGENTS[user % AGENTS.length]!.startsWith('Mozilla/') ? 'https://dashboard.example.org' : null,
    request_size: 200 + (index % 300),
    response_status: denied === null ? (random() < 0.97 ? 200 : 500) : denied === 'over_rate_limit' ? 429 : 403,
    response_size: denied === null ? 500 + Math.floor(random() * 5000) : 180,
    response_content_type: 'application/json',
    response_time: responseTime,
    upstream_time: upstreamTime,
    gateway_overhead: upstreamTime === null ? responseTime : responseTime - upstreamTime,
    api_backend_id: SEEDED_BACKENDS[index % SEEDED_BACKENDS.length]!,
    user_id: known ? seededUserId(user) : null,
    user_email: known ? seededEmail(user) : null,
    api_key_preview: known ? seededKeyPreview(user) : null,
    gatekeeper_denied_code: denied,
    response_custom1: null,
    response_custom2: null,
    response_custom3: null,
  };
}

/** A small seeded PRNG, so seeded data sets are reproducible. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      count: { type: 'string', default: '1000000' },
      days: { type: 'string', default: '30' },
    },
  });
  const dataDir = values['data-dir'];
  const count = Number(values.count);
  const days = Number(values.days);
  if (dataDir === undefined || !Number.isInteger(count) || count < 1 || !(days > 0)) {
    console.error('usage: seed-analytics --data-dir DIR [--count 1000000] [--days 30]');
    process.exit(2);
  }
  const db = openStore(dataDir);
  const started = performance.now();
  seedAnalytics(db, { count, days, endAt: Date.now() });
  db.pragma('optimize');
  db.close();
  console.log(`seeded ${count} entries over ${days} days into ${dataDir} in ${Math.round(performance.now() - started)} ms`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
