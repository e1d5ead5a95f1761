import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { TEMP_ROOT_VARIABLE } from '../temp-root.js';

/** A fresh directory under the run's temporary root (removed when the run ends). */
export function tempDir(prefix = 'parasol-test-'): string {
  return mkdtempSync(join(process.env[TEMP_ROOT_VARIABLE] ?? tmpdir(), prefix));
}

/**
 * A real config loaded through the real loader: a YAML file in a fresh temp
 * dir with data_dir inside it, listening on a free loopback port.
 */
export function testConfig(overrides: Record<string, unknown> = {}): Config {
  const dir = tempDir();
  const path = join(dir, 'parasol.yml');
  const values = { listen: { host: '127.0.0.1', port: 0 }, data_dir: join(dir, 'data'), log_level: 'silent', ...overrides };
  writeFileSync(path, stringify(values));
  return loadConfig({ configPath: path, env: {}, cwd: dir }).config;
}
