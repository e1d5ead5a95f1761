// Opens the SQLite store (WAL, foreign keys on) and brings its schema up to
// date with the numbered SQL files in migrations/.
import Database from 'better-sqlite3';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../lib/package-path.js';
import { ensureDataDir } from './data-dir.js';

export type Db = Database.Database;

const MIGRATION_FILE = /^(\d{3})-[a-z0-9-]+\.sql$/;

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Where the store of a data_dir lives. */
export function storePath(dataDir: string): string {
  return join(dataDir, 'parasol.db');
}

export function openStore(dataDir: string): Db {
  ensureDataDir(dataDir);
  const path = storePath(dataDir);
  // Users' emails and IPs, key and password digests: a new store is its owner's
  // alone, and SQLite gives its -wal and -shm files the same mode.
  closeSync(openSync(path, 'a', 0o600));
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  migrate(db, loadMigrations());
  return db;
}

export function loadMigrations(dir = packagePath('migrations')): Migration[] {
  return readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 3)), name: file, sql: readFileSync(join(dir, file), 'utf8') }));
}

/** Applies each migration newer than the store's user_version in its own transaction; re-running is a no-op. */
export function migrate(db: Db, migrations: readonly Migration[]): number[] {
  const applied: number[] = [];
  for (const migration of migrations) {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
    applied.push(migration.version);
  }
  return applied;
}
