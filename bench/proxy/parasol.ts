// Case C: Parasol as `npm start` runs it (the compiled dist/), with a
// published backend in front of the bench upstream and API users to call it.
// argv: upstream port, then a JSON Scenario. Import only its types: it runs on load.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type * as ServeModule from '../../src/serve.js';
import type * as LoadModule from '../../src/config/load.js';
import type * as ServiceModule from '../../src/api-backends/service.js';
import type * as AdminAccessModule from '../../src/admin-groups/admin-access.js';
import type * as ValidateModule from '../../src/api-backends/validate.js';
import { answerUsageRequests, type PublishRequest, type Ready } from './protocol.js';

export interface Scenario {
  /** Serve this data dir as it is (seeded by an earlier run) instead of a fresh one with the bench backend and user. */
  readonly dataDir?: string;
  /** Leave the fresh data dir behind on exit, for a later run to serve (its caller removes it). */
  readonly keepData?: boolean;
  /** Config overrides over the bench defaults (merged one level deep). */
  readonly config?: Record<string, unknown>;
  /** Backends /svc0/ … /svcN-1/ besides /bench/ (memory check). */
  readonly extraBackends?: number;
  readonly users?: number;
  /** How many users' clear keys to send back. */
  readonly keysToReturn?: number;
  /** The users' own rate_limit_mode is unlimited, so the limiter is skipped (limits off). */
  readonly unlimitedUsers?: boolean;
  /**
   * Also serve C's variants from this process: /bench-unlogged/ (the bench
   * backend with disable_analytics) and one more user, unlimited, whose key
   * goes back as `unlimitedApiKey`.
   */
  readonly variants?: boolean;
}

/** Limits the limiter evaluates on every request but that never refuse one. */
const NEVER_REACHED_LIMITS = [
  { duration: 1000, limit_by: 'ip', limit: 1_000_000_000, response_headers: false },
  { duration: 3_600_000, limit_by: 'api_key', limit: 1_000_000_000, response_headers: true },
];

const dist = new URL('../../dist/', import.meta.url).href;
const { startServer } = (await import(`${dist}serve.js`)) as typeof ServeModule;
const { loadConfig } = (await import(`${dist}config/load.js`)) as typeof LoadModule;
const { saveApiBackend } = (await import(`${dist}api-backends/service.js`)) as typeof ServiceModule;
const { AdminAccess } = (await import(`${dist}admin-groups/admin-access.js`)) as typeof AdminAccessModule;
const { parseApiBackend } = (await import(`${dist}api-backends/validate.js`)) as typeof ValidateModule;

const upstreamPort = Number(process.argv[2]);
const scenario = JSON.parse(process.argv[3] ?? '{}') as Scenario;

// Config file, and the data unless the scenario brought its own: a bench run's store holds millions of analytics rows.
const ownDir = mkdtempSync(join(tmpdir(), 'parasol-bench-'));
const server = await startServer(benchConfig(scenario.config ?? {}, scenario.dataDir));
const { context } = server;
const keys = scenario.dataDir === undefined ? seed() : [];
const unlimitedApiKey = scenario.variants === true ? seedVariants() : undefined;
const { analytics } = context;
answerUsageRequests(analytics.enabled ? () => ({ pending: analytics.pending, dropped: analytics.dropped }) : undefined);
process.on('message', (message: PublishRequest) => {
  if (!('publish' in message)) return;
  publish(backendInput(`Churn ${message.publish}`, `/churn${message.publish}/`));
  process.send!({ published: message.publish });
});
// The bench ends, dies or is stopped with Ctrl-C (which reaches every child): the store goes with it.
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void server.stop().then(() => {
    if (!scenario.keepData) rmSync(ownDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('disconnect', stop);
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
process.send!({ ready: { port: Number(new URL(server.url).port), apiKey: keys[0], keys, unlimitedApiKey, dataDir: server.context.config.data_dir } } satisfies Ready);

/** The bench backend at /bench/, the scenario's extra backends and users; returns the clear keys asked for. */
function seed(): string[] {
  publish(backendInput('Bench', '/bench/'));
  context.db.transaction(() => {
    // Straight into the repository: the admin's per-save conflict check reads every draft, quadratic over 1,000.
    const ids = Array.from({ length: scenario.extraBackends ?? 0 }, (_, index) => {
      const parsed = parseApiBackend(backendInput(`Service ${index}`, `/svc${index}/`));
      if (!parsed.ok) throw new Error(`bench backend invalid: ${JSON.stringify(parsed.errors)}`);
      return context.backends.create(parsed.value, null).id;
    });
    if (ids.length > 0) context.publisher.publish(ids, null);
  })();
  return createUsers(Math.max(scenario.users ?? 1, 1), scenario.keysToReturn ?? 1, scenario.unlimitedUsers === true);
}

/** The bench backend once more, unlogged, and an unlimited user: returns that user's key. */
function seedVariants(): string {
  publish(backendInput('Bench unlogged', '/bench-unlogged/', { disable_analytics: true }));
  return createUsers(1, 1, true, 'bench-unlimited')[0]!;
}

function benchConfig(overrides: Record<string, unknown>, dataDir: string | undefined) {
  const defaults: Record<string, unknown> = { listen: { host: '127.0.0.1', port: 0 }, data_dir: dataDir ?? join(ownDir, 'data'), log_level: 'silent' };
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(overrides)) {
    const base = merged[key];
    merged[key] = isObject(base) && isObject(value) ? { ...base, ...value } : value;
  }
  writeFileSync(join(ownDir, 'parasol.yml'), stringify(merged));
  return loadConfig({ configPath: join(ownDir, 'parasol.yml'), env: {}, cwd: ownDir }).config;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function backendInput(name: string, prefix: string, settings: Record<string, unknown> = {}) {
  return {
    name,
    frontend_host: '*',
    backend_host: '127.0.0.1',
    servers: [{ host: '127.0.0.1', port: upstreamPort }],
    url_matches: [{ frontend_prefix: prefix, backend_prefix: '/' }],
    settings: { rate_limit_mode: 'custom', rate_limits: NEVER_REACHED_LIMITS, ...settings },
  };
}

function save(input: unknown): string {
  // The bench stands in for the operator, who may do anything.
  const saved = saveApiBackend(context.backends, input, { by: null, access: AdminAccess.SUPERUSER, live: [], adminHosts: [] });
  if (saved === null || !saved.ok) throw new Error(`bench backend not saved: ${JSON.stringify(saved)}`);
  return saved.value.id;
}

function publish(input: unknown): void {
  context.publisher.publish([save(input)], null);
}

function createUsers(count: number, returned: number, unlimited: boolean, emailPrefix = 'bench'): string[] {
  const keys: string[] = [];
  context.db.transaction(() => {
    for (let index = 0; index < count; index++) {
      const { apiKey } = context.users.create(
        {
          email: `${emailPrefix}${index}@example.com`,
          first_name: 'Bench',
          last_name: `User ${index}`,
          website: null,
          use_description: null,
          roles: [],
          enabled: true,
          expires_at: null,
          email_verified: true,
          throttle_by_ip: false,
          settings: { rate_limit_mode: unlimited ? 'unlimited' : null, rate_limits: [], allowed_ips: [], allowed_referers: [] },
          registration_source: 'bench',
        },
        null,
      );
      if (index < returned) keys.push(apiKey);
    }
  })();
  return keys;
}
