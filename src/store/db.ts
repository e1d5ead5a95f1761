// Opens the SQLite store (WAL, foreign keys on) and brings its schema up to
// date with the numbered SQL files in migrations/.
import Database from 'better-sqlite3';
import { accessSync, chmodSync, closeSync, constants, existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../lib/package-path.js';
import { ensureDataDir, notAFile } from './data-dir.js';

export type Db = Database.Database;

const MIGRATION_FILE = /^(\d{3})-[a-z0-9-]+\.sql$/;

/** The store cannot be opened or brought up to date; the message names the file and what to do, in one line. */
export class StoreError extends Error {}

/** A migration failed and was rolled back; its message says which and the version the store stays at. */
class MigrationError extends Error {}

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Where the store of a data_dir lives. */
export function storePath(dataDir: string): string {
  return join(dataDir, 'parasol.db');
}

/** Each connection's page cache. */
const PAGE_CACHE_KB = 2_000;

/**
 * How long a statement waits for another connection's write lock before it
 * fails with SQLITE_BUSY. The analytics threads wait the default; the
 * main connection of a serving process (startServer) waits a second at most, since the proxy shares its
 * thread: the writer's batches hold the lock for milliseconds, and anything
 * holding it longer (a maintenance command) gets a quick "busy" (storeFailure)
 * rather than a frozen gateway.
 */
export interface StoreOptions {
  readonly busyTimeoutMs?: number;
  /** Told before migrations run, from which schema version to which: on a large store they may hold the start a while. */
  readonly migrating?: (from: number, to: number) => void;
}

export function openStore(dataDir: string, { busyTimeoutMs = 5000, migrating }: StoreOptions = {}): Db {
  ensureDataDir(dataDir);
  const path = storePath(dataDir);
  // Opening a directory would fail with Node's own words; a FIFO, not at all.
  const wrongKind = notAFile(path);
  if (wrongKind !== null) throw new StoreError(`${path}: ${notAStore(wrongKind)}`);
  let db: Db | null = null;
  try {
    createOwnersAlone(path);
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // SQLite's own default (better-sqlite3 builds it with 16 MB a connection).
    // The store's file sits in the OS page cache, so more made no query
    // measurably faster, while the main connection filled 16 MB reading the
    // users at start-up and the writer its own appending.
    db.pragma(`cache_size = -${PAGE_CACHE_KB}`);
    migrate(db, loadMigrations(), migrating);
    return db;
  } catch (error) {
    db?.close();
    throw new StoreError(`${path}: ${storeProblem(error)}`);
  }
}

/**
 * Users' emails and IPs, key and password digests: a new store is its
 * owner's alone, and SQLite gives its -wal and -shm files the same mode.
 * An existing store is never opened here: closing any descriptor of the
 * file drops every lock this process holds on it (POSIX), among them the
 * one SQLite's connections in the process hold while the store is open, and
 * the analytics threads open theirs after the main connection. Without it,
 * another program opening the store took itself for the only one and deleted
 * the running gateway's -wal file.
 */
function createOwnersAlone(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // What opening for appending checked: SQLite would open a store it may not write read-only, and fail later.
    accessSync(path, constants.R_OK | constants.W_OK);
    closeToOthers(path);
  }
}

/**
 * A store an older Parasol made (0644, before stores were their owner's
 * alone) is closed to other accounts, with its -wal and -shm: by path, as no
 * descriptor of it may be closed here (above). Its group keeps what it had
 * (a backup group, say).
 */
function closeToOthers(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0;
    if ((mode & 0o007) !== 0) chmodSync(file, mode & 0o770);
  }
}

/** The first bytes of every SQLite file. */
export const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** The words for a store start-up refuses, also found without opening it (store-check.ts). */
export const DAMAGED_STORE = 'not a SQLite database, or a damaged one; check data_dir, or restore a backup';

/** For the store, and for the lock and pid files beside it (instance-lock.ts). */
export function notWritable(code: string | undefined): string {
  return `cannot be opened for writing (${code}); it and data_dir must be writable by the user Parasol runs as`;
}

/** `what` is notAFile()'s "a directory, not a regular file". */
export function notAStore(what: string): string {
  return `${what}; check data_dir, or move it away`;
}

export function newerStore(version: number, known: number): string {
  return `made by a newer Parasol (schema version ${version}; this one knows up to ${known}); run that version or restore a backup`;
}

/** Seconds a client is asked to wait (Retry-After) when the store cannot be written. */
export const STORE_RETRY_AFTER_S = '5';

/** A store a running Parasol cannot write just now: what its pages and APIs answer instead of a 500. */
export interface StoreFailure {
  readonly status: 503;
  readonly message: string;
}

/** The failure `error` is, when it is the store's (busy, full, read-only, an I/O error); null for any other error. */
export function storeFailure(error: unknown): StoreFailure | null {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return null;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return { status: 503, message: 'The store is busy: another process is writing to it. Try again in a moment.' };
  if (code === 'SQLITE_FULL') return { status: 503, message: 'The disk holding the store is full. Try again once the operator has freed space.' };
  if (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') {
    return { status: 503, message: 'The store cannot be written just now. Try again later; the operator finds why in the log.' };
  }
  return null;
}

/** What went wrong, in the operator's terms; SQLite's own words when there is nothing to add. */
function storeProblem(error: unknown): string {
  if (error instanceof MigrationError) return error.message;
  const { code, message } = error as { code?: string; message?: string };
  switch (code) {
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return DAMAGED_STORE;
    case 'SQLITE_BUSY':
      return 'locked by another process for more than 5 s; try again when it is done';
    case 'SQLITE_FULL':
      return 'the disk is full';
    case 'SQLITE_READONLY':
    case 'SQLITE_CANTOPEN':
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return notWritable(code);
    default:
      return message ?? String(error);
  }
}

export function loadMigrations(dir = packagePath('migrations')): Migration[] {
  return readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 3)), name: file, sql: readFileSync(join(dir, file), 'utf8') }));
}

/**
 * Applies each migration newer than the store's user_version in its own
 * transaction; re-running is a no-op. A store of a newer Parasol is refused
 * before anything is written: its schema may mean things this one cannot know.
 */
export function migrate(db: Db, migrations: readonly Migration[], migrating?: (from: number, to: number) => void): number[] {
  refuseNewerStore(db, migrations);
  const from = db.pragma('user_version', { simple: true }) as number;
  const to = migrations.at(-1)?.version ?? 0;
  if (to > from) migrating?.(from, to);
  const applied: number[] = [];
  for (const migration of migrations) {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (migration.version <= current) continue;
    try {
      db.transaction(() => {
        db.exec(migration.sql);
        db.pragma(`user_version = ${migration.version}`);
      })();
    } catch (error) {
      throw new MigrationError(`migration ${migration.name} failed: ${storeProblem(error)}; the store stays at schema version ${current}`);
    }
    applied.push(migration.version);
  }
  return applied;
}

function refuseNewerStore(db: Db, migrations: readonly Migration[]): void {
  const known = migrations.at(-1)?.version ?? 0;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > known) throw new Error(newerStore(version, known));
}
