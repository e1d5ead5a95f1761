// The API users' search (admin page and admin API): three characters or more
// come from the trigram index, which must follow every write; shorter ones
// read the rows. Either way any part of an email, a name, the key preview, the
// registration source, a role or the id matches, whatever the case, as in
// API Umbrella.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContext, type AppContext } from '../../src/context.js';
import { backupStore } from '../../src/store/backup.js';
import { loadMigrations, migrate } from '../../src/store/db.js';
import { tempDir, testConfig } from '../helpers/config.js';
import { apiUserInput } from '../helpers/users.js';

let context: AppContext;
beforeEach(() => {
  context = createContext(testConfig());
});
afterEach(() => context.close());

const found = (search: string) => context.users.list({ search }).users.map((user) => user.email).sort();

describe('API user search', () => {
  it('finds any part of an email, a name or a key preview, ignoring case, and a whole id', () => {
    const { user, apiKey } = context.users.create(apiUserInput({ email: 'Ada.Lovelace@Example.org', first_name: 'Ada', last_name: "O'Byrne \"Analyst\"" }), 'test');
    context.users.create(apiUserInput({ email: 'grace@navy.example', first_name: 'Grace', last_name: 'Hopper' }), 'test');
    expect(found('lovelace@ex')).toEqual(['Ada.Lovelace@Example.org']);
    expect(found('HOPP')).toEqual(['grace@navy.example']);
    expect(found("o'byrne \"an")).toEqual(['Ada.Lovelace@Example.org']);
    expect(found(apiKey.slice(0, 6))).toEqual(['Ada.Lovelace@Example.org']);
    expect(found(user.id)).toEqual(['Ada.Lovelace@Example.org']);
    expect(found('example')).toEqual(['Ada.Lovelace@Example.org', 'grace@navy.example']);
    // Short searches read the rows, with the same answers. (Neither can match a key preview, six random letters and digits then "...".)
    expect(found('.l')).toEqual(['Ada.Lovelace@Example.org']);
    expect(found('@N')).toEqual(['grace@navy.example']);
    // Nothing in one field runs on into the next.
    expect(found('Ada Lovelace')).toEqual([]);
    expect(found('%')).toEqual([]);
  });

  it("finds any part of the registration source, a role or the id, as API Umbrella's search does", () => {
    const { user } = context.users.create(apiUserInput({ email: 'sourced@example.com', registration_source: 'RegistrationSourceSearchTest', roles: ['RoleSearchTest1', 'RoleSearchTest3'] }), 'test');
    context.users.create(apiUserInput({ email: 'other@example.com', registration_source: 'web_admin', roles: ['a-z'] }), 'test');
    expect(found('registrationsourcesearchtest')).toEqual(['sourced@example.com']);
    expect(found('olesearchtest3')).toEqual(['sourced@example.com']);
    expect(found(user.id.slice(9, 18).toUpperCase())).toEqual(['sourced@example.com']);
    // Read from the rows when short: a role, and never the JSON list's own quotes.
    expect(found('-Z')).toEqual(['other@example.com']);
    expect(found('"')).toEqual([]);
    // A role's name does not run on into the next role's.
    expect(found('Test1 RoleSearch')).toEqual([]);
    expect(found('olesearchtest3extra')).toEqual([]);
  });

  it('follows a change of roles and of registration source', () => {
    const { user } = context.users.create(apiUserInput({ email: 'roles@example.com', roles: ['before-role'] }), 'test');
    context.users.update(user.id, apiUserInput({ email: 'roles@example.com', roles: ['after-role'], registration_source: 'imported' }), null);
    expect(found('before-role')).toEqual([]);
    expect(found('after-role')).toEqual(['roles@example.com']);
    expect(found('imported')).toEqual(['roles@example.com']);
  });

  it('follows an edit, a new key and a deletion', () => {
    const { user } = context.users.create(apiUserInput({ email: 'before@example.com', first_name: 'Before' }), 'test');
    context.users.update(user.id, apiUserInput({ email: 'after@example.com', first_name: 'After' }), null);
    expect(found('before')).toEqual([]);
    expect(found('after@')).toEqual(['after@example.com']);
    const old = context.users.get(user.id)!.api_key_preview.slice(0, 6);
    const renewed = context.users.regenerateKey(user.id, null, null)!;
    expect(found(old)).toEqual([]);
    expect(found(renewed.apiKey.slice(0, 6))).toEqual(['after@example.com']);
    context.users.delete(user.id, 'test');
    expect(found('after@')).toEqual([]);
  });

  it("keeps working in a backup's copy (VACUUM INTO may renumber api_users' hidden rowids), after edits there", () => {
    const made = ['one', 'two', 'three', 'four'].map((name) => context.users.create(apiUserInput({ email: `${name}@example.com` }), 'test').user);
    context.users.delete(made[1]!.id, 'test');
    const target = join(tempDir('parasol-backup-'), 'copy.db');
    backupStore(context.config.data_dir, target);
    const copy = new Database(target);
    const search = copy.prepare(
      `SELECT k.user_id FROM api_users_search AS s JOIN api_user_search_keys AS k ON k.n = s.rowid WHERE api_users_search MATCH ?`,
    );
    copy.prepare('UPDATE api_users SET email = ? WHERE id = ?').run('renamed@example.com', made[2]!.id);
    copy.prepare('DELETE FROM api_users WHERE id = ?').run(made[3]!.id);
    expect(search.pluck().all('"one@"')).toEqual([made[0]!.id]);
    expect(search.pluck().all('"three@"')).toEqual([]);
    expect(search.pluck().all('"renamed@"')).toEqual([made[2]!.id]);
    expect(search.pluck().all('"four@"')).toEqual([]);
    copy.close();
  });

  it('indexes the users of a store made before the index (migration 018)', () => {
    const db = new Database(':memory:');
    const migrations = loadMigrations();
    migrate(db, migrations.filter((migration) => migration.version < 18));
    db.prepare(
      `INSERT INTO api_users (id, api_key_prefix, api_key_hash, api_key_preview, email, first_name, created_at, updated_at)
       VALUES ('u1', 'Prefix0000000001', x'00', 'Prefix...', 'kept@example.com', 'Kept', 'now', 'now')`,
    ).run();
    migrate(db, migrations);
    const search = db.prepare(
      `SELECT k.user_id FROM api_users_search AS s JOIN api_user_search_keys AS k ON k.n = s.rowid WHERE api_users_search MATCH ?`,
    );
    expect(search.pluck().all('"kept@"')).toEqual(['u1']);
    db.prepare("UPDATE api_users SET email = 'moved@example.com' WHERE id = 'u1'").run();
    expect(search.pluck().all('"kept@"')).toEqual([]);
    expect(search.pluck().all('"moved@"')).toEqual(['u1']);
  });

  it("indexes the registration source and roles of a store's existing users (migration 025)", () => {
    const db = new Database(':memory:');
    const migrations = loadMigrations();
    migrate(db, migrations.filter((migration) => migration.version < 25));
    db.prepare(
      `INSERT INTO api_users (id, api_key_prefix, api_key_hash, api_key_preview, email, roles, registration_source, created_at, updated_at)
       VALUES ('u1', 'Prefix0000000001', x'00', 'Prefix...', 'kept@example.com', '["alpha-role","beta-role"]', 'old-import', 'now', 'now')`,
    ).run();
    migrate(db, migrations);
    const search = db.prepare(
      `SELECT k.user_id FROM api_users_search AS s JOIN api_user_search_keys AS k ON k.n = s.rowid WHERE api_users_search MATCH ?`,
    );
    expect([search.pluck().all('"beta-role"'), search.pluck().all('"old-imp"'), search.pluck().all('"kept@"')]).toEqual([['u1'], ['u1'], ['u1']]);
    // One name a line: no quote of the JSON list is indexed.
    expect([search.pluck().all('"alpha-role\nbeta"'), search.pluck().all('"""alpha"')]).toEqual([['u1'], []]);
  });
});
