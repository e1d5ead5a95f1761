// What `parasol serve` refuses at start-up beyond what the config loader
// checks, for `parasol config check`: found without taking the instance lock,
// binding the configured port or making anything, so that the check can run
// beside a running gateway (a reload) and before the first start
// (ExecStartPre).
import { lookup } from 'node:dns/promises';
import { createServer } from 'node:net';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { notLocalHost, unresolvedHost } from '../serve.js';
import { loadMigrations } from '../store/db.js';
import { lockFilesProblemOf } from '../store/instance-lock.js';
import { secretKeyProblemOf } from '../store/secret-key-check.js';
import { readStoreAsOwner, storeProblemOf } from '../store/store-check.js';

/**
 * The error start-up would stop with, or null; in start-up's order: the
 * lock and pid files, the store (their lines name the file), then the
 * listener (a ConfigValueError, to which the command line adds where
 * listen.host was set, as for serve).
 * (data_dir itself is the loader's.)
 */
export async function startUpProblem(config: Config): Promise<ConfigError | null> {
  const file = lockFilesProblemOf(config.data_dir) ?? storeProblemOf(config.data_dir) ?? secretKeyProblem(config);
  return file !== null ? new ConfigError(file) : await listenHostProblem(config.listen.host);
}

/**
 * The store's secret as start-up judges it, once the store is migrated (an
 * older one is judged after the upgrade's start has migrated it); the store
 * is read only by its owner (see readStoreAsOwner).
 */
function secretKeyProblem(config: Config): string | null {
  const latest = loadMigrations().at(-1)?.version ?? 0;
  const judged = readStoreAsOwner(config.data_dir, (db) => (db.pragma('user_version', { simple: true }) === latest ? { problem: secretKeyProblemOf(db, config) } : null));
  return judged === null ? secretKeyProblemOf(null, config) : judged.problem;
}

/**
 * The listener resolves listen.host with dns.lookup() before it binds; a name
 * or a malformed address (256.1.1.1) that does not resolve stops start-up.
 * In the words of serve.ts's listenError().
 */
async function listenHostProblem(host: string | null): Promise<ConfigError | null> {
  if (host === null) return null;
  try {
    await lookup(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return unresolvedHost(host, code);
    throw error;
  }
  return notLocalHostProblem(host);
}

/** An address of another machine is refused when bound: tried on a port the system picks, which no running gateway holds. */
async function notLocalHostProblem(host: string): Promise<ConfigError | null> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, host, resolve));
    return null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') return notLocalHost(host);
    throw error;
  } finally {
    probe.close();
  }
}
