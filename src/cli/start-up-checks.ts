// What `parasol serve` refuses at start-up beyond what the config loader
// checks, for `parasol config check`: found without taking the instance lock,
// binding a port or making anything, so that the check can run beside a
// running gateway (a reload) and before the first start (ExecStartPre).
import { lookup } from 'node:dns/promises';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { unresolvedHost } from '../serve.js';
import { lockFilesProblemOf } from '../store/instance-lock.js';
import { storeProblemOf } from '../store/store-check.js';

/**
 * The error start-up would stop with, or null; in start-up's order: the
 * lock and pid files, the store (their lines name the file), then the
 * listener (a ConfigValueError, to which the command line adds where
 * listen.host was set, as for serve).
 * (data_dir itself is the loader's.)
 */
export async function startUpProblem(config: Config): Promise<ConfigError | null> {
  const file = lockFilesProblemOf(config.data_dir) ?? storeProblemOf(config.data_dir);
  return file !== null ? new ConfigError(file) : await listenHostProblem(config.listen.host);
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
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return unresolvedHost(host, code);
    throw error;
  }
}
