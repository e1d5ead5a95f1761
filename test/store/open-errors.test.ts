// A store Parasol cannot use stops it with one line that names the file and
// what is wrong, and leaves the file as it was.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openStore, storePath } from '../../src/store/db.js';
import { createContext } from '../../src/context.js';
import { UNPROVEN_SECRET } from '../../src/store/secret-key-check.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { apiUserInput } from '../helpers/users.js';
import { tempDir, testConfig } from '../helpers/config.js';

describe('opening a store Parasol cannot use', () => {
  it('refuses a store made by a newer Parasol, naming both schema versions, and changes nothing', () => {
    const dir = join(tempDir(), 'data');
    openStore(dir).close();
    const latest = loadMigrations().at(-1)!.version;
    const newer = new Database(storePath(dir));
    newer.pragma(`user_version = ${latest + 1}`);
    newer.close();

    expect(() => openStore(dir)).toThrow(
      `${storePath(dir)}: made by a newer Parasol (schema version ${latest + 1}; this one knows up to ${latest}); run that version or restore a backup`,
    );
    const after = new Database(storePath(dir));
    expect(after.pragma('user_version', { simple: true })).toBe(latest + 1);
    after.close();
  });

  it('names a file that is not a SQLite database, and leaves it alone', () => {
    const dir = tempDir();
    const text = 'these are notes, not a database\n'.repeat(10);
    writeFileSync(storePath(dir), text);
    expect(() => openStore(dir)).toThrow(`${storePath(dir)}: not a SQLite database, or a damaged one; check data_dir, or restore a backup`);
    expect(readFileSync(storePath(dir), 'utf8')).toBe(text);
  });

  it('makes a data_dir several levels deep, and names one that cannot be made where a parent refuses children (under /proc) instead of spinning', () => {
    const deep = join(tempDir(), 'a', 'b', 'data');
    openStore(deep).close();
    expect(existsSync(storePath(deep))).toBe(true);
    expect(() => openStore('/proc/parasol-data')).toThrow(/^data_dir \/proc\/parasol-data cannot be created/);
  });

  it('says so when data_dir is a file, not a directory', () => {
    const file = join(tempDir(), 'data');
    writeFileSync(file, 'x');
    expect(() => openStore(file)).toThrow(`data_dir ${file} is not a directory`);
    // The command line names where data_dir was set in front of it.
    expect(() => openStore(file)).toThrow(expect.objectContaining({ keys: ['data_dir'] }));
  });

  it('names the migration that failed and the version the store stays at', () => {
    const db = new Database(':memory:');
    const failing = [
      { version: 1, name: '001-ok.sql', sql: 'CREATE TABLE a (x INTEGER);' },
      { version: 2, name: '002-bad.sql', sql: 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);' },
    ];
    expect(() => migrate(db, failing)).toThrow('migration 002-bad.sql failed: no such table: nowhere; the store stays at schema version 1');
  });

  it('says the disk is full when a migration runs out of room, and rolls it back', () => {
    const db = new Database(':memory:');
    migrate(db, [{ version: 1, name: '001-ok.sql', sql: 'CREATE TABLE a (x TEXT);' }]);
    // SQLite answers SQLITE_FULL past max_page_count, as on a full disk.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const growing = { version: 2, name: '002-big.sql', sql: "CREATE TABLE b (x TEXT); INSERT INTO b VALUES (randomblob(100000));" };
    expect(() => migrate(db, [growing])).toThrow('migration 002-big.sql failed: the disk is full; the store stays at schema version 1');
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
  });

  it('starts nothing in a data_dir whose store is refused: no secret_key is made beside it', () => {
    const config = testConfig();
    mkdirSync(config.data_dir);
    writeFileSync(storePath(config.data_dir), 'not a database'.repeat(20));
    expect(() => createContext(config)).toThrow(storePath(config.data_dir));
    expect(existsSync(join(config.data_dir, 'secret_key'))).toBe(false);
  });

  it('refuses to make a new secret_key for a store whose keys and tokens were made with a lost one', async () => {
    const config = testConfig();
    const first = createContext(config);
    await first.admins.create({ email: 'ops@example.com', password: 'a very long password', superuser: true });
    first.close();
    rmSync(join(config.data_dir, 'secret_key'));
    expect(() => createContext(config)).toThrow(
      `${join(config.data_dir, 'secret_key')} is missing, but the store holds API keys or admin tokens made with it; restore it from a backup (or set secret_key)`,
    );
    expect(existsSync(join(config.data_dir, 'secret_key'))).toBe(false);
  });

  it('names a secret_key file that is a directory or empty, instead of failing in Node\'s words or keying with an empty secret', () => {
    const config = testConfig();
    createContext(config).close();
    const file = join(config.data_dir, 'secret_key');
    rmSync(file);
    mkdirSync(file);
    expect(() => createContext(config)).toThrow(`${file}: a directory, not a regular file; restore it from a backup (or set secret_key)`);
    rmSync(file, { recursive: true });
    writeFileSync(file, '\n');
    expect(() => createContext(config)).toThrow(`${file} is empty; restore it from a backup (or set secret_key)`);
    expect(readFileSync(file, 'utf8')).toBe('\n');
  });

  it("refuses a secret_key that is not the one the store's keys and tokens were made with, and takes the right one again", async () => {
    const config = testConfig();
    const first = createContext(config);
    await first.admins.create({ email: 'ops@example.com', password: 'a very long password', superuser: true });
    first.close();
    const typo = { ...config, secret_key: 'not the secret it was made with' };
    expect(() => createContext(typo)).toThrow(
      "the config's secret_key is not the secret this store's API keys and admin tokens were made with, so every one of them would be refused; use that secret (a backup's secret_key file has it)",
    );
    const madeWith = readFileSync(join(config.data_dir, 'secret_key'), 'utf8').trim();
    createContext({ ...config, secret_key: madeWith }).close();
    createContext(config).close();
  });

  it('takes a new secret_key for a store that holds no keys or tokens', () => {
    const empty = testConfig();
    createContext(empty).close();
    const renewed = { ...empty, secret_key: 'a new secret for an empty store' };
    createContext(renewed).close();
    createContext(empty).close();
  });

  it('takes the secret of a store from before the check, and records it only once a key verifies under it: a wrong one is never pinned', async () => {
    const older = testConfig();
    const context = createContext(older);
    const { apiKey } = context.users.create(apiUserInput({ email: 'ada@example.com' }), null);
    context.db.prepare('DELETE FROM secret_key_check').run();
    context.close();
    // A backup restored without its secret_key file: started, warned, every key refused, nothing recorded.
    const { logger, lines } = capturingLogger();
    const wrong = createContext({ ...older, secret_key: 'another one' }, { logger });
    expect(lines.map((line) => line.msg)).toContain(UNPROVEN_SECRET);
    expect(wrong.keyIndex.find(apiKey)).toBeNull();
    await new Promise((resolve) => setImmediate(resolve));
    wrong.close();
    // The right secret put back: taken, and recorded at the first key it verifies.
    const right = createContext(older);
    expect(right.keyIndex.find(apiKey)).not.toBeNull();
    await new Promise((resolve) => setImmediate(resolve));
    right.close();
    expect(() => createContext({ ...older, secret_key: 'another one' })).toThrow('is not the secret this store');
  });
});
