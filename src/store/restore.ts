// `parasol restore`: puts a copy `parasol backup` made in place of a
// data_dir's store. By hand it has traps: a -wal file left beside the old
// store is replayed into the new one (corrupting it), and a copy made by a
// newer Parasol or under another secret is found only when the next start
// fails. Here everything is checked, and migrated, on a copy inside data_dir
// before the store is touched; the store it replaces is kept beside it.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import { notAFile } from './data-dir.js';
import { loadMigrations, migrate, storePath, type Db } from './db.js';
import { acquireInstanceLock } from './instance-lock.js';
import { storeSecretKey } from './secret-key-check.js';

export class RestoreError extends Error {}

export interface Restored {
  /** The restored store's schema version, after the migrations this Parasol has. */
  readonly schemaVersion: number;
  /** Where the store it replaced was put; null when data_dir had none. */
  readonly previous: string | null;
  /** Whether data_dir's secret was checked against the backup's keys and tokens: not for a backup from before the check (migration 020). */
  readonly secretKeyChecked: boolean;
}

/** SQLite's files beside a store in WAL mode. */
const SIDE_FILES = ['-wal', '-shm'] as const;

/** Refuses while a Parasol runs on data_dir (InstanceLockedError), and holds its lock meanwhile so that none starts. */
export function restoreStore(config: Config, source: string, now: Date): Restored {
  refuseSource(source);
  const lock = acquireInstanceLock(config.data_dir);
  try {
    const store = storePath(config.data_dir);
    const staged = `${store}.restoring`;
    removeWithSideFiles(staged); // Left by a restore that was cut short.
    let prepared: Prepared;
    try {
      copyFileSync(source, staged);
      chmodSync(staged, 0o600);
      prepared = prepare(staged, config, source);
      syncFile(staged);
    } catch (error) {
      removeWithSideFiles(staged);
      throw error;
    }
    const previous = setAside(store, now);
    renameSync(staged, store);
    syncFile(config.data_dir);
    return { ...prepared, previous };
  } finally {
    lock.release();
  }
}

function refuseSource(source: string): void {
  const wrongKind = notAFile(source);
  if (wrongKind !== null) throw new RestoreError(`${source}: ${wrongKind}`);
  if (!existsSync(source)) throw new RestoreError(`${source} does not exist`);
  // Part of that database is still in its -wal file: a copy of a live store, not a backup.
  if (existsSync(`${source}-wal`) && statSync(`${source}-wal`).size > 0) {
    throw new RestoreError(`${source} has a -wal file beside it: it is a store in use (or one not closed cleanly), not a backup; make one with parasol backup`);
  }
}

type Prepared = Omit<Restored, 'previous'>;

/** Checks the staged copy as start-up would and brings its schema up to date; throws one line naming the source. */
function prepare(staged: string, config: Config, source: string): Prepared {
  let db: Db | null = null;
  try {
    db = new Database(staged, { fileMustExist: true });
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new RestoreError(`damaged (SQLite's quick_check: ${String(check)})`);
    if (!isParasolStore(db)) throw new RestoreError('not a store of Parasol; restore a file parasol backup made');
    migrate(db, loadMigrations());
    // A backup from before the secret's record is restored without it being checked: recorded once a key verifies (StoreSecret.prove).
    const { prove } = storeSecretKey(db, config);
    db.pragma('journal_mode = WAL');
    return { schemaVersion: db.pragma('user_version', { simple: true }) as number, secretKeyChecked: prove === null };
  } catch (error) {
    throw new RestoreError(`${source}: ${problemOf(error)}`);
  } finally {
    db?.close();
  }
}

function isParasolStore(db: Db): boolean {
  return db.prepare("SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'api_users')").pluck().get() === 1;
}

function problemOf(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') return 'not a SQLite database, or a damaged one';
  return message ?? String(error);
}

/**
 * Moves the store (with its -wal and -shm, once what its -wal holds is in
 * the file) to parasol.db.replaced-<time>, a store of its own that could be
 * restored in turn; null when there is none.
 */
function setAside(store: string, now: Date): string | null {
  if (!existsSync(store)) return null;
  foldInWal(store);
  const previous = `${store}.replaced-${now.toISOString().replaceAll(':', '-')}`;
  renameSync(store, previous);
  for (const side of SIDE_FILES) if (existsSync(store + side)) renameSync(store + side, previous + side);
  return previous;
}

/** The last connection to close a WAL store deletes its -wal once checkpointed; a damaged store keeps its side files instead. */
function foldInWal(store: string): void {
  try {
    const db = new Database(store, { fileMustExist: true });
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
  } catch {
    // Moved as it is, side files and all.
  }
}

function removeWithSideFiles(path: string): void {
  for (const file of [path, ...SIDE_FILES.map((side) => path + side)]) rmSync(file, { force: true });
}

/** A rename is only durable once its directory is; the copy, once its own data is. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
