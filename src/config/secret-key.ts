import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './schema.js';
import { ensureDataDir, notAFile } from '../store/data-dir.js';

const SECRET_FILE = 'secret_key';

/**
 * The secret that keys are HMAC'd with: the configured one, or one generated
 * on first start and kept in data_dir, so that keys survive restarts. Only a
 * store without keys or tokens (`storeHasDigests` false) may get a new one.
 */
export function resolveSecretKey(config: Config, storeHasDigests: boolean): string {
  return existingSecretKey(config, storeHasDigests) ?? makeSecretKey(config);
}

/**
 * The configured or kept secret; null when there is none yet and the store
 * may be given one. Throws one line when it cannot be used. Makes nothing
 * (for `parasol config check` too).
 */
export function existingSecretKey(config: Config, storeHasDigests: boolean): string | null {
  const path = secretKeyFile(config);
  if (path === null) return config.secret_key!;
  if (existsSync(path)) return readSecretFile(path);
  // A new secret would silently turn every stored key and token into one that never matches.
  if (storeHasDigests) throw new Error(`${path} is missing, but the store holds API keys or admin tokens made with it; restore it from a backup (or set secret_key)`);
  return null;
}

function makeSecretKey(config: Config): string {
  const path = secretKeyFile(config)!;
  ensureDataDir(config.data_dir);
  const secret = randomBytes(32).toString('hex');
  writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}

/**
 * The kept secret, or one line saying why it cannot be used. An empty file
 * (a disk that filled as it was written) would make every key's HMAC one
 * anybody can compute; a FIFO would keep start-up waiting.
 */
function readSecretFile(path: string): string {
  const wrongKind = notAFile(path);
  if (wrongKind !== null) throw new Error(`${path}: ${wrongKind}; restore it from a backup (or set secret_key)`);
  let secret: string;
  try {
    secret = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new Error(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code}); it must be readable by the user Parasol runs as`);
  }
  if (secret === '') throw new Error(`${path} is empty; restore it from a backup (or set secret_key)`);
  return secret;
}

/** The file the secret is kept in, or null when the config sets `secret_key` itself. */
export function secretKeyFile(config: Config): string | null {
  return config.secret_key !== null && config.secret_key !== '' ? null : join(config.data_dir, SECRET_FILE);
}

/**
 * Writes the running secret back when its file has gone (a cleanup of
 * data_dir while Parasol runs): the next start would otherwise refuse a store
 * whose keys were made with it. True when it wrote the file; nothing when the
 * config sets secret_key.
 */
export function rewriteMissingSecretFile(config: Config, secret: string): boolean {
  const path = secretKeyFile(config);
  if (path === null || existsSync(path)) return false;
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${secret}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  return true;
}
