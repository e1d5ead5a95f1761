// What `parasol serve` refuses at start-up beyond what the config loader
// checks, for `parasol config check`: found without taking the instance lock,
// binding the configured port or making anything, so that the check can run
// beside a running gateway (a reload) and before the first start
// (ExecStartPre).
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { listenHostProblem } from '../listen-address.js';
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

