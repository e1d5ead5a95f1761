// One running Parasol per data_dir. The guard is an exclusive SQLite lock on
// data_dir/parasol.lock, which the kernel gives back when the process ends,
// however it ends: after a crash, kill -9 or a power cut nothing stale is left
// to judge, and a pid reused since (after a reboot; pid 1 at every start of a
// container) cannot pass for a running Parasol. The pid file beside it only
// tells who holds the lock.
import Database from 'better-sqlite3';
import { accessSync, closeSync, constants, existsSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir, notAFile } from './data-dir.js';
import { notWritable, SQLITE_MAGIC } from './db.js';

export class InstanceLockedError extends Error {}

/** The lock file or the pid file beside it cannot be used; the message names it and says why, in one line. */
export class LockFileError extends Error {}

export interface InstanceLock {
  release(): void;
}

export function acquireInstanceLock(dataDir: string): InstanceLock {
  ensureDataDir(dataDir);
  const { lockPath, pidPath } = lockFilesOf(dataDir);
  refuseNonFile(lockPath);
  let lock: Database.Database;
  try {
    closeSync(openSync(lockPath, 'a', 0o600));
    // No busy timeout: a held lock is an answer, not something to wait for.
    lock = new Database(lockPath, { timeout: 0 });
  } catch (error) {
    throw new LockFileError(`${lockPath}: ${lockFileProblem(error)}`);
  }
  try {
    // The file holds no data: no journal file beside it either.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw new LockFileError(`${lockPath}: ${lockFileProblem(error)}`);
    throw new InstanceLockedError(`Parasol is already running with data_dir ${dataDir} (pid ${holderOf(pidPath)}); stop it first or use another data_dir`);
  }
  try {
    refuseNonFile(pidPath);
    // Whatever pid file is there was left by a process that no longer holds the lock.
    writeFileSync(pidPath, `${process.pid}\n`);
  } catch (error) {
    lock.close();
    throw error instanceof LockFileError ? error : new LockFileError(`${pidPath}: ${lockFileProblem(error)}`);
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

/**
 * The pid of the Parasol that holds data_dir's lock, or null when none does
 * (for `parasol reload`, `status` and `stop`). Writes no file; when no one
 * holds the lock it is taken and given back at once (a Parasol starting in
 * that instant would take it for a running one and say so). With `waitMs`,
 * a held lock is waited for that long first: null then means the holder has
 * stopped (SQLite's busy handler retries the lock until then).
 */
export function runningInstancePid(dataDir: string, waitMs = 0): number | null {
  const { lockPath, pidPath } = lockFilesOf(dataDir);
  if (!existsSync(lockPath)) return null;
  let probe: Database.Database;
  try {
    probe = new Database(lockPath, { timeout: waitMs, fileMustExist: true });
  } catch (error) {
    throw new LockFileError(`${lockPath}: ${lockFileProblem(error)}`);
  }
  try {
    probe.exec('BEGIN EXCLUSIVE');
    probe.exec('ROLLBACK');
    return null;
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw new LockFileError(`${lockPath}: ${lockFileProblem(error)}`);
    const pid = Number(holderOf(pidPath));
    if (!Number.isSafeInteger(pid) || pid <= 0) throw new LockFileError(`${pidPath}: names no pid while Parasol runs with data_dir ${dataDir}; try again once it has started`);
    return pid;
  } finally {
    probe.close();
  }
}

function lockFilesOf(dataDir: string): { lockPath: string; pidPath: string } {
  return { lockPath: join(dataDir, 'parasol.lock'), pidPath: join(dataDir, 'parasol.pid') };
}

/** Neither file holds anything Parasol needs: in the way, it may go. */
const REMOVE = 'remove it, and Parasol makes it again';

/** Before it is opened: a directory would fail in Node's words, a FIFO would keep start-up waiting for a reader. */
function refuseNonFile(path: string): void {
  const wrongKind = notAFile(path);
  if (wrongKind !== null) throw new LockFileError(`${path}: ${wrongKind}; ${REMOVE}`);
}

/** Why the lock file (or the pid file) could not be opened or locked, in the operator's terms; the code when there is nothing to add. */
function lockFileProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  switch (code) {
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return `holds data that is not SQLite's, where Parasol keeps an empty lock file; ${REMOVE}`;
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'SQLITE_READONLY':
    case 'SQLITE_CANTOPEN':
      return notWritable(code);
    default:
      return `cannot be used (${code ?? message ?? String(error)})`;
  }
}

/**
 * Why acquireInstanceLock() would fail on what the lock and pid files are,
 * found without opening them through SQLite or changing anything (for
 * `parasol config check`, beside a running gateway too); null when it would
 * not, or when they are not there yet (start-up makes them).
 */
export function lockFilesProblemOf(dataDir: string): string | null {
  const { lockPath, pidPath } = lockFilesOf(dataDir);
  for (const path of [lockPath, pidPath]) {
    const wrongKind = notAFile(path);
    if (wrongKind !== null) return `${path}: ${wrongKind}; ${REMOVE}`;
    if (!existsSync(path)) continue;
    try {
      accessSync(path, path === lockPath ? constants.R_OK | constants.W_OK : constants.W_OK);
    } catch (error) {
      return `${path}: ${lockFileProblem(error)}`;
    }
  }
  if (!existsSync(lockPath)) return null;
  // Empty as Parasol makes it; anything else that is not a SQLite file, SQLite refuses.
  const start = Buffer.alloc(SQLITE_MAGIC.length);
  let read: number;
  try {
    const fd = openSync(lockPath, 'r');
    try {
      read = readSync(fd, start, 0, start.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return `${lockPath}: ${lockFileProblem(error)}`;
  }
  return read === 0 || start.equals(SQLITE_MAGIC) ? null : `${lockPath}: ${lockFileProblem({ code: 'SQLITE_NOTADB' })}`;
}

function holderOf(pidPath: string): string {
  try {
    return readFileSync(pidPath, 'utf8').trim() || 'unknown';
  } catch {
    return 'unknown'; // Between the holder's lock and its pid file.
  }
}
