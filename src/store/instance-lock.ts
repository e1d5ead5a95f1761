// One running Parasol per data_dir. The guard is an exclusive SQLite lock on
// data_dir/parasol.lock, which the kernel gives back when the process ends,
// however it ends: after a crash, kill -9 or a power cut nothing stale is left
// to judge, and a pid reused since (after a reboot; pid 1 at every start of a
// container) cannot pass for a running Parasol. The pid file beside it only
// tells who holds the lock.
import Database from 'better-sqlite3';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir } from './data-dir.js';

export class InstanceLockedError extends Error {}

export interface InstanceLock {
  release(): void;
}

export function acquireInstanceLock(dataDir: string): InstanceLock {
  ensureDataDir(dataDir);
  const lockPath = join(dataDir, 'parasol.lock');
  const pidPath = join(dataDir, 'parasol.pid');
  closeSync(openSync(lockPath, 'a', 0o600));
  // No busy timeout: a held lock is an answer, not something to wait for.
  const lock = new Database(lockPath, { timeout: 0 });
  try {
    // The file holds no data: no journal file beside it either.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new InstanceLockedError(`Parasol is already running with data_dir ${dataDir} (pid ${holderOf(pidPath)}); stop it first or use another data_dir`);
  }
  try {
    // Whatever pid file is there was left by a process that no longer holds the lock.
    writeFileSync(pidPath, `${process.pid}\n`);
  } catch (error) {
    lock.close();
    throw error;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      rmSync(pidPath, { force: true });
      lock.close();
    },
  };
}

function holderOf(pidPath: string): string {
  try {
    return readFileSync(pidPath, 'utf8').trim() || 'unknown';
  } catch {
    return 'unknown'; // Between the holder's lock and its pid file.
  }
}
