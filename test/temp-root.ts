// Vitest global setup: one temporary root per test run. Every test's data
// dir is made under it (test/helpers/config.ts) and the whole tree goes when
// the run ends; left behind, the SQLite files and analytics data of a run
// filled the disk's /tmp run after run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TEMP_ROOT_VARIABLE = 'TESTS_TEMP_ROOT';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'parasol-tests-'));
  // Set before the test workers start, so they inherit it.
  process.env[TEMP_ROOT_VARIABLE] = root;
  return () => rmSync(root, { recursive: true, force: true });
}
