// `parasol restore`: a backup put in place of the store, checked first on a
// copy, with the store it replaces kept; real SQLite files throughout.
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { createContext } from '../../src/context.js';
import { backupStore } from '../../src/store/backup.js';
import { loadMigrations, migrate, storePath } from '../../src/store/db.js';
import { acquireInstanceLock, InstanceLockedError } from '../../src/store/instance-lock.js';
import { RestoreError, restoreStore } from '../../src/store/restore.js';
import { tempDir, testConfig } from '../helpers/config.js';
import { apiUserInput } from '../helpers/users.js';

const NOW = new Date('2026-11-29T01:30:00Z');
const LATEST = loadMigrations().at(-1)!.version;

function emailsIn(config: Config): string[] {
  const context = createContext(config);
  try {
    return context.users.list({}).users.map((user) => user.email).sort();
  } finally {
    context.close();
  }
}

function addUser(config: Config, email: string): void {
  const context = createContext(config);
  try {
    context.users.create(apiUserInput({ email }), 'test');
  } finally {
    context.close();
  }
}

/** A backup holding one user, and the store moved on since (a second user). */
function storeWithBackup(): { config: Config; backup: string } {
  const config = testConfig();
  addUser(config, 'kept@example.com');
  const backup = join(tempDir(), 'backup.db');
  backupStore(config.data_dir, backup);
  addUser(config, 'later@example.com');
  return { config, backup };
}

/** What the store holds now, byte for byte, to show a refused restore left it alone. */
function storeBytes(config: Config): Buffer {
  return readFileSync(storePath(config.data_dir));
}

describe('parasol restore', () => {
  it('puts the backup in place and keeps the store it replaces, whole, beside it', () => {
    const { config, backup } = storeWithBackup();
    const restored = restoreStore(config, backup, NOW);
    expect(restored).toEqual({ schemaVersion: LATEST, previous: `${storePath(config.data_dir)}.replaced-2026-11-29T01-30-00.000Z`, secretKeyChecked: true });
    expect(emailsIn(config)).toEqual(['kept@example.com']);
    expect(statSync(storePath(config.data_dir)).mode & 0o777).toBe(0o600);
    const previous = new Database(restored.previous!, { readonly: true });
    expect(previous.prepare('SELECT email FROM api_users ORDER BY email').pluck().all()).toEqual(['kept@example.com', 'later@example.com']);
    previous.close();
    expect(readdirSync(config.data_dir).filter((file) => file.includes('restoring'))).toEqual([]);
  });

  it('does not replay the -wal of a store left by an abrupt stop into the restored one; that -wal goes with the old store', () => {
    const { config, backup } = storeWithBackup();
    // A store copied as a crash leaves it: its last writes only in the -wal file.
    const live = new Database(storePath(config.data_dir));
    live.pragma('wal_autocheckpoint = 0');
    live.prepare("UPDATE api_users SET first_name = 'Unsaved'").run();
    const crashed = testConfig();
    mkdirSync(crashed.data_dir);
    for (const file of ['parasol.db', 'parasol.db-wal', 'secret_key']) copyFileSync(join(config.data_dir, file), join(crashed.data_dir, file));
    live.close();
    expect(statSync(join(crashed.data_dir, 'parasol.db-wal')).size).toBeGreaterThan(0);

    const { previous } = restoreStore(crashed, backup, NOW);
    expect(existsSync(`${storePath(crashed.data_dir)}-wal`) && statSync(`${storePath(crashed.data_dir)}-wal`).size > 0).toBe(false);
    const context = createContext(crashed);
    expect(context.users.list({}).users.map((user) => user.first_name)).toEqual(['Test']);
    context.close();
    const old = new Database(previous!, { readonly: true });
    expect(old.prepare('SELECT DISTINCT first_name FROM api_users').pluck().all()).toEqual(['Unsaved']);
    old.close();
  });

  it('brings an older backup up to this Parasol\'s schema, and restores into a data_dir that has no store yet', () => {
    const older = join(tempDir(), 'older.db');
    const db = new Database(older);
    migrate(db, loadMigrations().slice(0, 5));
    db.close();
    const fresh = testConfig();
    expect(restoreStore(fresh, older, NOW)).toEqual({ schemaVersion: LATEST, previous: null, secretKeyChecked: true });
    expect(emailsIn(fresh)).toEqual([]);
  });

  it('refuses while a Parasol holds the data_dir, and changes nothing', () => {
    const { config, backup } = storeWithBackup();
    const before = storeBytes(config);
    const lock = acquireInstanceLock(config.data_dir);
    try {
      expect(() => restoreStore(config, backup, NOW)).toThrow(InstanceLockedError);
    } finally {
      lock.release();
    }
    expect(storeBytes(config)).toEqual(before);
  });

  it('refuses, before touching the store, what start-up would refuse and what is no backup', () => {
    const { config, backup } = storeWithBackup();
    const before = storeBytes(config);
    const dir = tempDir();
    const refused = (source: string, message: string) => {
      expect(() => restoreStore(config, source, NOW)).toThrow(new RestoreError(message));
      expect(storeBytes(config)).toEqual(before);
      expect(readdirSync(config.data_dir).filter((file) => file.includes('restoring') || file.includes('replaced'))).toEqual([]);
    };

    refused(join(dir, 'missing.db'), `${join(dir, 'missing.db')} does not exist`);
    refused(dir, `${dir}: a directory, not a regular file`);
    writeFileSync(join(dir, 'notes.txt'), 'not a database at all, but long enough to be read as a header by SQLite...............');
    refused(join(dir, 'notes.txt'), `${join(dir, 'notes.txt')}: not a SQLite database, or a damaged one`);
    const other = join(dir, 'other.db');
    new Database(other).exec('CREATE TABLE t (x)').close();
    refused(other, `${other}: not a store of Parasol; restore a file parasol backup made`);

    const newer = join(dir, 'newer.db');
    copyFileSync(backup, newer);
    const made = new Database(newer);
    made.pragma(`user_version = ${LATEST + 1}`);
    made.close();
    refused(newer, `${newer}: made by a newer Parasol (schema version ${LATEST + 1}; this one knows up to ${LATEST}); run that version or restore a backup`);

    const inUse = join(dir, 'in-use.db');
    copyFileSync(backup, inUse);
    writeFileSync(`${inUse}-wal`, 'pages not yet in the file');
    refused(inUse, `${inUse} has a -wal file beside it: it is a store in use (or one not closed cleanly), not a backup; make one with parasol backup`);
  });

  it('refuses a backup whose keys were made with another secret than this data_dir\'s', () => {
    const { config } = storeWithBackup();
    const before = storeBytes(config);
    const elsewhere = testConfig({ secret_key: 'another secret, of another installation' });
    addUser(elsewhere, 'theirs@example.com');
    const theirs = join(tempDir(), 'theirs.db');
    backupStore(elsewhere.data_dir, theirs);
    expect(() => restoreStore(config, theirs, NOW)).toThrow(
      `${theirs}: ${join(config.data_dir, 'secret_key')} is not the secret this store's API keys and admin tokens were made with, so every one of them would be refused; use that secret (a backup's secret_key file has it)`,
    );
    expect(storeBytes(config)).toEqual(before);
  });

  it("restores a backup from before the secret's record without pinning this data_dir's secret: it says it could not check, and the backup's secret is taken afterwards", () => {
    const { config } = storeWithBackup();
    const elsewhere = testConfig({ secret_key: 'the secret of the installation the backup is from' });
    addUser(elsewhere, 'theirs@example.com');
    const theirs = join(tempDir(), 'theirs.db');
    backupStore(elsewhere.data_dir, theirs);
    const older = new Database(theirs);
    older.prepare('DELETE FROM secret_key_check').run();
    older.close();
    expect(restoreStore(config, theirs, NOW)).toMatchObject({ schemaVersion: LATEST, secretKeyChecked: false });
    // Started with this data_dir's secret (the backup's secret_key file forgotten): nothing verifies, nothing is recorded.
    createContext(config).close();
    createContext({ ...config, secret_key: elsewhere.secret_key }).close();
  });
});
