import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './schema.js';
import { ensureDataDir } from '../store/data-dir.js';

const SECRET_FILE = 'secret_key';

/**
 * The secret that keys are HMAC'd with: the configured one, or one generated
 * on first start and kept in data_dir, so that keys survive restarts.
 */
export function resolveSecretKey(config: Config): string {
  const path = secretKeyFile(config);
  if (path === null) return config.secret_key!;
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  ensureDataDir(config.data_dir);
  const secret = randomBytes(32).toString('hex');
  writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}

/** The file the secret is kept in, or null when the config sets `secret_key` itself. */
export function secretKeyFile(config: Config): string | null {
  return config.secret_key !== null && config.secret_key !== '' ? null : join(config.data_dir, SECRET_FILE);
}
