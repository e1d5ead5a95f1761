// A consistent copy of the store, made while Parasol keeps running. VACUUM
// INTO reads one snapshot (in WAL mode the server goes on writing meanwhile)
// and writes it as a compact database of its own; copying parasol.db by hand
// could catch it between a transaction's pages, or miss what is still in its
// -wal file.
import { closeSync, existsSync, openSync, statSync, unlinkSync } from 'node:fs';
import { openStore, storePath } from './db.js';

export class BackupError extends Error {}

/** Writes the store of `dataDir` to `target`, which must not exist yet; answers the copy's size in bytes. */
export function backupStore(dataDir: string, target: string): number {
  if (!existsSync(storePath(dataDir))) throw new BackupError(`there is no store in ${dataDir} to back up`);
  createEmpty(target);
  try {
    const db = openStore(dataDir);
    try {
      db.prepare('VACUUM INTO ?').run(target);
    } finally {
      db.close();
    }
  } catch (error) {
    unlinkSync(target);
    throw error;
  }
  return statSync(target).size;
}

/** Made first, empty and its owner's alone, like the store (emails, IPs, digests); never over an existing file. */
function createEmpty(target: string): void {
  try {
    closeSync(openSync(target, 'wx', 0o600));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BackupError(code === 'EEXIST' ? `${target} already exists; a backup never overwrites a file` : `cannot create ${target}: ${code ?? String(error)}`);
  }
}
