// The data directory holds the store and the secret key: made, when missing,
// for its owner alone.
import { mkdirSync } from 'node:fs';

export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
}
