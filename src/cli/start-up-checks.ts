// What `parasol serve` refuses at start-up beyond what the config loader
// checks, for `parasol config check`: found without taking the instance lock,
// binding a port or making anything, so that the check can run beside a
// running gateway (a reload) and before the first start (ExecStartPre).
import { lookup } from 'node:dns/promises';
import type { Config } from '../config/schema.js';
import { unresolvedHost } from '../serve.js';
import { storeProblemOf } from '../store/store-check.js';

/** The line start-up would stop with, or null; in start-up's order: the store, then the listener. (data_dir itself is the loader's.) */
export async function startUpProblem(config: Config): Promise<string | null> {
  return storeProblemOf(config.data_dir) ?? (await listenHostProblem(config.listen.host));
}

/**
 * The listener resolves listen.host with dns.lookup() before it binds; a name
 * or a malformed address (256.1.1.1) that does not resolve stops start-up.
 * In the words of serve.ts's listenError().
 */
async function listenHostProblem(host: string): Promise<string | null> {
  try {
    await lookup(host);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return unresolvedHost(host, code);
    throw error;
  }
}
