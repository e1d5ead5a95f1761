import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openStore } from '../../src/store/db.js';
import { createContext } from '../../src/context.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { tempDir, testConfig } from '../helpers/config.js';

describe('store', () => {
  it("opens in WAL mode with foreign keys on, SQLite's default 2 MB page cache (not better-sqlite3's 16) and every migration applied", () => {
    const db = openStore(join(tempDir(), 'data'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('cache_size', { simple: true })).toBe(-2000);
    const latest = loadMigrations().at(-1)!.version;
    expect(db.pragma('user_version', { simple: true })).toBe(latest);
    expect((db.prepare('SELECT count(*) AS n FROM api_backends').get() as { n: number }).n).toBe(0);
    db.close();
  });

  it("makes a new store its owner's alone: the directory 0700, the database and its WAL files 0600", () => {
    const dir = join(tempDir(), 'data');
    const db = openStore(dir);
    db.prepare('CREATE TABLE t (x)').run();
    const mode = (file: string) => statSync(join(dir, file)).mode & 0o777;
    expect(mode('.')).toBe(0o700);
    for (const file of ['parasol.db', 'parasol.db-wal', 'parasol.db-shm']) expect(mode(file), file).toBe(0o600);
    db.close();
  });

  it('upgrades an old database, keeping its rows, and re-running is a no-op', () => {
    const dir = join(tempDir(), 'data');
    const migrations = loadMigrations();
    const old = openStore(dir);
    old.close();
    // Make it look like a store written by the first release: only migration 001 applied.
    const raw = new Database(join(dir, 'parasol.db'));
    raw.pragma('user_version = 0');
    // Dropped in any order: a table may reference one dropped before it.
    raw.pragma('foreign_keys = OFF');
    for (const view of raw.prepare("SELECT name FROM sqlite_master WHERE type = 'view'").pluck().all() as string[]) raw.exec(`DROP VIEW "${view}"`);
    // IF EXISTS: dropping a full-text index drops its shadow tables with it.
    for (const table of raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]) {
      raw.exec(`DROP TABLE IF EXISTS "${table}"`);
    }
    migrate(raw, migrations.slice(0, 1));
    raw.prepare("INSERT INTO api_backends VALUES ('b1', 'kept', '{}', 1, 'now', 'now', null, null)").run();
    raw.close();

    const upgraded = openStore(dir);
    expect(upgraded.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
    expect(upgraded.prepare('SELECT name FROM api_backends').all()).toEqual([{ name: 'kept' }]);
    expect(migrate(upgraded, migrations)).toEqual([]);
    upgraded.close();
  });

  it('closes a store an older Parasol left readable by every account (0644) to other accounts, with its WAL files; its group keeps what it had', () => {
    const dir = join(tempDir(), 'data');
    openStore(dir).close();
    const store = join(dir, 'parasol.db');
    chmodSync(store, 0o644);
    writeFileSync(`${store}-wal`, '');
    chmodSync(`${store}-wal`, 0o666);
    openStore(dir).close();
    expect(statSync(store).mode & 0o777).toBe(0o640);
    if (existsSync(`${store}-wal`)) expect(statSync(`${store}-wal`).mode & 0o777).toBe(0o660);
  });

  it('says in the log when a start migrates the store, before and after, and says nothing when there is nothing to migrate', () => {
    const config = testConfig();
    mkdirSync(config.data_dir, { recursive: true, mode: 0o700 });
    const store = new Database(join(config.data_dir, 'parasol.db'));
    migrate(store, loadMigrations().slice(0, 5));
    const from = store.pragma('user_version', { simple: true }) as number;
    store.close();
    const latest = loadMigrations().at(-1)!.version;
    const first = capturingLogger();
    createContext(config, { logger: first.logger }).close();
    const said = first.lines.filter((line) => /migrat/.test(String(line.msg)));
    expect(said).toEqual([expect.objectContaining({ from_version: from, to_version: latest }), expect.objectContaining({ msg: 'store migrated', from_version: from })]);
    const again = capturingLogger();
    createContext(config, { logger: again.logger }).close();
    expect(again.lines.filter((line) => /migrat/.test(String(line.msg)))).toEqual([]);
  });

  it("ends the key and token previews a store made with three dots, as API Umbrella's, and leaves imported ones", () => {
    const db = new Database(':memory:');
    const migrations = loadMigrations();
    migrate(db, migrations.filter((migration) => migration.version < 7));
    const user = db.prepare(
      `INSERT INTO api_users (id, api_key_prefix, api_key_hash, api_key_preview, email, created_at, updated_at) VALUES (?, ?, x'00', ?, 'u@example.com', 'now', 'now')`,
    );
    user.run('made', 'Ab3dEfGhIjKlMnOp', 'Ab3dEf…');
    user.run('imported', 'LegacyKey0000001', 'Legacy…0001');
    db.prepare(
      `INSERT INTO admins (id, email, password_hash, superuser, enabled, auth_token_prefix, auth_token_hash, auth_token_preview, created_at, updated_at)
       VALUES ('admin', 'a@example.com', 'x', 1, 1, 'TokenPrefix00001', x'00', 'TokenP…', 'now', 'now')`,
    ).run();
    migrate(db, migrations);
    expect(db.prepare('SELECT id, api_key_preview FROM api_users ORDER BY id').all()).toEqual([
      { id: 'imported', api_key_preview: 'Legacy…0001' },
      { id: 'made', api_key_preview: 'Ab3dEf...' },
    ]);
    expect(db.prepare('SELECT auth_token_preview FROM admins').pluck().get()).toBe('TokenP...');
  });

  it('marks the users an operator made as email-verified (also one since deleted), and signups not', () => {
    const db = new Database(':memory:');
    const migrations = loadMigrations();
    migrate(db, migrations.filter((migration) => migration.version < 8));
    db.prepare(
      `INSERT INTO admins (id, email, password_hash, superuser, enabled, created_at, updated_at) VALUES ('admin-id', 'Ops@Example.com', 'x', 1, 1, 'now', 'now')`,
    ).run();
    const user = db.prepare(
      `INSERT INTO api_users (id, api_key_prefix, api_key_hash, api_key_preview, email, created_at, updated_at, created_by) VALUES (?, ?, x'00', 'p...', 'u@example.com', 'now', 'now', ?)`,
    );
    user.run('by-admin-id', 'Prefix0000000001', 'admin-id');
    user.run('by-admin-email', 'Prefix0000000002', 'ops@example.com');
    user.run('by-cli', 'Prefix0000000003', 'cli');
    user.run('by-form', 'Prefix0000000004', null);
    user.run('by-key-creator', 'Prefix0000000005', 'by-cli');
    user.run('by-deleted-admin', 'Prefix0000000006', 'gone@example.com');
    migrate(db, migrations);
    expect(db.prepare('SELECT id FROM api_users WHERE email_verified = 1 ORDER BY id').pluck().all()).toEqual(['by-admin-email', 'by-admin-id', 'by-cli', 'by-deleted-admin']);
  });

  it('moves stored analytics entries to one context per client, every field and id as it was (fields added later null), the time index answering the default view', () => {
    const db = new Database(':memory:');
    const migrations = loadMigrations();
    migrate(db, migrations.filter((migration) => migration.version < 16));
    const client = { request_method: 'GET', request_scheme: 'https', request_host: 'api.example.com', request_ip: '192.0.2.1', request_user_agent: 'curl/8.5.0', api_backend_id: 'b1', user_id: 'u1', user_email: 'u1@example.com', api_key_preview: 'abcd...' };
    const anonymous = { ...client, request_ip: '192.0.2.9', request_user_agent: null, user_id: null, user_email: null, api_key_preview: null };
    const own = (id: number, at: number, denied: string | null) => ({
      id, request_id: `r${id}`, request_at: at, request_path: `/p/${id}`, request_url_query: '', request_referer: id === 2 ? 'https://example.org/' : null,
      request_size: 10, response_status: denied === null ? 200 : 403, response_size: 20, response_time: 1.5, upstream_time: denied === null ? 1 : null, gateway_overhead: 0.5,
      gatekeeper_denied_code: denied,
    });
    const rows = [
      { ...own(1, 86_400_000 * 3, null), ...client },
      { ...own(2, 86_400_000 * 5 + 1, null), ...client },
      { ...own(7, 86_400_000 * 4, 'api_key_missing'), ...anonymous },
    ];
    const columns = Object.keys(rows[0]!);
    const insert = db.prepare(`INSERT INTO analytics_logs (${columns.join(', ')}) VALUES (${columns.map((name) => `@${name}`).join(', ')})`);
    for (const row of rows) insert.run(row);

    migrate(db, migrations);
    // Migration 17's and 26's fields are null for entries stored before them.
    const later = { request_origin: null, response_content_type: null, response_custom1: null, response_custom2: null, response_custom3: null };
    expect(db.prepare('SELECT * FROM analytics_logs ORDER BY id').all()).toEqual(rows.map((row) => ({ ...row, ...later, context_id: expect.any(Number) })));
    expect(db.prepare('SELECT user_id, last_day FROM analytics_contexts ORDER BY last_day').raw().all()).toEqual([[null, 4], ['u1', 5]]);
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT count(*) FROM analytics_logs WHERE request_at >= 0 AND request_at < 1 AND (gatekeeper_denied_code IS NULL OR gatekeeper_denied_code = '')").all() as { detail: string }[];
    expect(plan.map((step) => step.detail)).toEqual([expect.stringContaining('USING COVERING INDEX analytics_requests_request_at')]);
  });

  it("lowercases admins' emails (A-Z only, as NOCASE compares them), which cannot collide, and adds their name and notes", () => {
    const db = new Database(':memory:');
    const migrations = loadMigrations();
    migrate(db, migrations.filter((migration) => migration.version < 22));
    const admin = db.prepare(`INSERT INTO admins (id, email, password_hash, superuser, enabled, created_at, updated_at) VALUES (?, ?, 'x', 1, 1, 'then', 'then')`);
    admin.run('mixed', 'Ops@Example.COM');
    admin.run('lower', 'kept@example.com');
    admin.run('accented', 'École@Example.com');
    // Two emails differing in the case of A-Z alone never got in: nothing the lowercasing could make collide.
    expect(() => admin.run('twin', 'OPS@example.com')).toThrow(/UNIQUE constraint failed: admins\.email/);
    migrate(db, migrations);
    expect(db.prepare('SELECT id, email, name, notes, updated_at FROM admins ORDER BY id').all()).toEqual([
      { id: 'accented', email: 'École@example.com', name: null, notes: null, updated_at: 'then' },
      { id: 'lower', email: 'kept@example.com', name: null, notes: null, updated_at: 'then' },
      { id: 'mixed', email: 'ops@example.com', name: null, notes: null, updated_at: 'then' },
    ]);
  });

  it('gives existing admins no password link, finds one by its HMAC through a unique index, and takes only its two kinds', () => {
    const db = new Database(':memory:');
    const migrations = loadMigrations();
    migrate(db, migrations.filter((migration) => migration.version < 27));
    const admin = db.prepare(`INSERT INTO admins (id, email, password_hash, superuser, enabled, created_at, updated_at) VALUES (?, ?, 'x', 1, 1, 'then', 'then')`);
    admin.run('a', 'a@example.com');
    admin.run('b', 'b@example.com');
    migrate(db, migrations);
    expect(db.prepare('SELECT reset_password_token_hash, reset_password_sent_at, reset_password_kind FROM admins').all()).toEqual([
      { reset_password_token_hash: null, reset_password_sent_at: null, reset_password_kind: null },
      { reset_password_token_hash: null, reset_password_sent_at: null, reset_password_kind: null },
    ]);
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT id FROM admins WHERE reset_password_token_hash = ?').all(Buffer.alloc(32)) as { detail: string }[];
    expect(plan.map((step) => step.detail)).toEqual([expect.stringContaining('USING INDEX admins_reset_password_token_hash')]);
    const link = db.prepare('UPDATE admins SET reset_password_token_hash = ?, reset_password_sent_at = 1, reset_password_kind = ? WHERE id = ?');
    link.run(Buffer.alloc(32, 1), 'reset', 'a');
    expect(() => link.run(Buffer.alloc(32, 1), 'invite', 'b')).toThrow(/UNIQUE constraint failed/);
    expect(() => link.run(Buffer.alloc(32, 2), 'welcome', 'b')).toThrow(/CHECK constraint failed/);
  });

  it('gives the groups granting user_manage or admin_manage the view permission that comes with it, and leaves the others', () => {
    const db = new Database(':memory:');
    const migrations = loadMigrations();
    migrate(db, migrations.filter((migration) => migration.version < 23));
    const group = db.prepare(`INSERT INTO admin_groups (id, name, permission_ids, created_at, updated_at) VALUES (?, ?, ?, 'then', 'then')`);
    group.run('users', 'Users', JSON.stringify(['analytics', 'user_manage']));
    group.run('admins', 'Admins', JSON.stringify(['admin_manage']));
    group.run('both', 'Both', JSON.stringify(['user_manage', 'admin_manage', 'admin_view']));
    group.run('fine', 'Fine', JSON.stringify(['user_view', 'user_manage']));
    group.run('viewers', 'Viewers', JSON.stringify(['admin_view']));
    migrate(db, migrations);
    const permissions = Object.fromEntries((db.prepare('SELECT id, permission_ids FROM admin_groups').all() as { id: string; permission_ids: string }[]).map((row) => [row.id, JSON.parse(row.permission_ids)]));
    expect(permissions).toEqual({
      users: ['analytics', 'user_manage', 'user_view'],
      admins: ['admin_manage', 'admin_view'],
      both: ['user_manage', 'admin_manage', 'admin_view', 'user_view'],
      fine: ['user_view', 'user_manage'],
      viewers: ['admin_view'],
    });
    expect(db.prepare('SELECT DISTINCT updated_at FROM admin_groups').pluck().all()).toEqual(['then']);
  });

  it("gives users and admins API Umbrella's audit fields: disabled users disabled at their last change, the web admin's creator emails as admin ids, an admin's latest sign-in as the current one", () => {
    const db = new Database(':memory:');
    const migrations = loadMigrations();
    migrate(db, migrations.filter((migration) => migration.version < 28));
    const admin = db.prepare(`INSERT INTO admins (id, email, password_hash, superuser, enabled, created_at, updated_at, last_sign_in_at) VALUES (?, ?, 'x', 1, 1, 'then', 'then', ?)`);
    admin.run('ops-id', 'ops@example.com', '2026-03-01T10:00:00.000Z');
    admin.run('never-id', 'never@example.com', null);
    const user = db.prepare(
      `INSERT INTO api_users (id, api_key_prefix, api_key_hash, api_key_preview, email, enabled, created_at, updated_at, created_by)
       VALUES (?, ?, x'00', 'p...', 'u@example.com', ?, '2026-01-01', ?, ?)`,
    );
    user.run('by-api', 'Prefix0000000001', 1, '2026-01-01', 'ops-id');
    user.run('by-web-admin', 'Prefix0000000002', 1, '2026-01-01', 'Ops@Example.com');
    user.run('changed-since', 'Prefix0000000003', 1, '2026-02-01', 'ops-id');
    user.run('disabled', 'Prefix0000000004', 0, '2026-02-01', null);
    user.run('by-deleted-admin', 'Prefix0000000005', 1, '2026-01-01', 'gone@example.com');
    user.run('by-cli', 'Prefix0000000006', 1, '2026-01-01', 'cli');
    migrate(db, migrations);
    expect(db.prepare('SELECT id, created_by, updated_by, disabled_at FROM api_users ORDER BY id').all()).toEqual([
      { id: 'by-api', created_by: 'ops-id', updated_by: 'ops-id', disabled_at: null },
      { id: 'by-cli', created_by: 'cli', updated_by: 'cli', disabled_at: null },
      { id: 'by-deleted-admin', created_by: 'gone@example.com', updated_by: 'gone@example.com', disabled_at: null },
      { id: 'by-web-admin', created_by: 'ops-id', updated_by: 'ops-id', disabled_at: null },
      // Who changed it last is not known.
      { id: 'changed-since', created_by: 'ops-id', updated_by: null, disabled_at: null },
      { id: 'disabled', created_by: null, updated_by: null, disabled_at: '2026-02-01' },
    ]);
    expect(db.prepare('SELECT id, sign_in_count, current_sign_in_at, last_sign_in_at, current_sign_in_ip, last_sign_in_ip FROM admins ORDER BY id').all()).toEqual([
      { id: 'never-id', sign_in_count: 0, current_sign_in_at: null, last_sign_in_at: null, current_sign_in_ip: null, last_sign_in_ip: null },
      { id: 'ops-id', sign_in_count: 1, current_sign_in_at: '2026-03-01T10:00:00.000Z', last_sign_in_at: '2026-03-01T10:00:00.000Z', current_sign_in_ip: null, last_sign_in_ip: null },
    ]);
  });

  it('applies a failing migration not at all', () => {
    const db = new Database(':memory:');
    const failing = [
      { version: 1, name: '001-ok.sql', sql: 'CREATE TABLE a (x INTEGER);' },
      { version: 2, name: '002-bad.sql', sql: 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);' },
    ];
    expect(() => migrate(db, failing)).toThrow(/no such table: nowhere/);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
  });

  it('numbers migrations uniquely', () => {
    const versions = loadMigrations().map((m) => m.version);
    expect(new Set(versions).size).toBe(versions.length);
  });
});
