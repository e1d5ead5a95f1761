// One running Parasol per data_dir: a pid file, taken at start and given back
// at stop. A stale file (its process gone) is taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir } from './data-dir.js';

export class InstanceLockedError extends Error {}

export interface InstanceLock {
  release(): void;
}

export function acquireInstanceLock(dataDir: string): InstanceLock {
  ensureDataDir(dataDir);
  const path = join(dataDir, 'parasol.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      return { release: () => releaseIfOurs(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
        throw new InstanceLockedError(`Parasol is already running with data_dir ${dataDir} (pid ${holder}); stop it first or use another data_dir`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new InstanceLockedError(`could not take the lock file ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIfOurs(path: string): void {
  try {
    if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
  } catch {
    // Already gone: nothing to release.
  }
}
