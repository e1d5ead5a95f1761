// A published version stores each backend's document once, shared with the
// versions before and after it: publishing one changed backend adds that
// backend, not the whole config; listing versions reads no config; and the
// configs read back (rollback, restart, a store migrated from whole-config
// versions) are the ones published.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { withCurrentSettings, type ApiBackend, type ApiBackendConfig } from '../../src/api-backends/model.js';
import { ApiBackendRepository } from '../../src/api-backends/repository.js';
import { Publisher } from '../../src/publish/publisher.js';
import { loadMigrations, migrate, openStore, storePath, type Db } from '../../src/store/db.js';
import { tempDir } from '../helpers/config.js';
import { backendConfig } from '../helpers/scoped-backends.js';

function storeDir(): string {
  return join(tempDir('parasol-version-documents-'), 'data');
}

/** A backend of about 2.5 KB, as real ones with headers are; its error data has text JSON escapes, and text it does not. */
function sizedConfig(name: string): ApiBackendConfig {
  const config = backendConfig(name, [`/${name}/`]);
  const headers = Array.from({ length: 8 }, (_, index) => ({ id: `${name}-h${index}`, key: `X-Header-${index}`, value: 'v'.repeat(80) }));
  return { ...config, settings: { ...config.settings, headers, error_data: { api_key_missing: { message: `Café → ${name} 😀 "quoted" \\ \u2028` } } } };
}

function bookkeepingLeftOut(api: ApiBackend): ApiBackendConfig {
  const { id, sort_order, created_at, updated_at, created_by, updated_by, ...config } = api;
  return config;
}

/** Gives the backend's first header another value: one backend changed. */
function changeOne(backends: ApiBackendRepository, id: string, value: string): void {
  const config = bookkeepingLeftOut(backends.get(id)!);
  const [first, ...rest] = config.settings.headers;
  backends.update(id, { ...config, settings: { ...config.settings, headers: [{ ...first!, value }, ...rest] } }, 'root@example.com');
}

function storeBytes(db: Db): number {
  return (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
}

function documentCount(db: Db): number {
  return db.prepare('SELECT count(*) FROM config_documents').pluck().get() as number;
}

function seeded(count: number): { db: Db; backends: ApiBackendRepository; publisher: Publisher; ids: string[] } {
  const db = openStore(storeDir());
  const backends = new ApiBackendRepository(db);
  const ids = Array.from({ length: count }, (_, index) => backends.create(sizedConfig(`b${index}`), 'root@example.com').id);
  const publisher = new Publisher(db, backends);
  publisher.publish(ids, 'root@example.com');
  return { db, backends, publisher, ids };
}

describe('published versions', () => {
  it('grow the store by the changed backend, not by the whole config, on each publish', () => {
    const { db, backends, publisher, ids } = seeded(100);
    const wholeConfig = JSON.stringify(publisher.current.apis).length;
    const before = storeBytes(db);
    for (let publish = 1; publish <= 20; publish += 1) {
      changeOne(backends, ids[0]!, `value ${publish}`);
      expect(publisher.publish([ids[0]!], 'root@example.com')).not.toBeNull();
    }
    // 20 whole configs would be 20 times this.
    expect(storeBytes(db) - before).toBeLessThan(wholeConfig);
    expect(documentCount(db)).toBe(100 + 20);
  });

  it('list without reading any config, even a version whose documents are gone', () => {
    const { db, backends, publisher, ids } = seeded(3);
    changeOne(backends, ids[1]!, 'changed');
    const changed = publisher.publish([ids[1]!], 'root@example.com')!;
    const prepare = vi.spyOn(db, 'prepare');
    publisher.versions();
    for (const [sql] of prepare.mock.calls) expect(sql).not.toMatch(/\*|document/);

    db.prepare('DELETE FROM config_version_backends WHERE version_id = ?').run(changed.id);
    db.prepare('DELETE FROM config_documents WHERE id NOT IN (SELECT document_id FROM config_version_backends)').run();
    const listed = publisher.versions();
    expect(listed.map((version) => version.id)).toEqual([changed.id, changed.id - 1]);
    expect(listed[0]).toEqual(changed);
  });

  it('keep every backend a publish leaves alone as the same live object', () => {
    const { backends, publisher, ids } = seeded(3);
    const before = publisher.current.apis;
    changeOne(backends, ids[1]!, 'changed');
    publisher.publish([ids[1]!], 'root@example.com');
    const after = publisher.current.apis;
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(after[2]).toBe(before[2]);
  });

  it('give back the config they published on rollback and after a restart, adding no document for backends already stored', () => {
    const { db, backends, publisher, ids } = seeded(3);
    const first = publisher.current;
    changeOne(backends, ids[0]!, 'changed');
    backends.delete(ids[2]!);
    publisher.publish([ids[0]!, ids[2]!], 'root@example.com');
    const documents = documentCount(db);

    const rolledBack = publisher.rollback(first.version!, 'root@example.com');
    expect(rolledBack).toMatchObject({ rollback_of: first.version, changes: { new: ['b2'], modified: ['b0'], deleted: [] } });
    expect(publisher.current.apis).toEqual(first.apis);
    expect(publisher.versionConfig(first.version!)).toEqual(first);
    expect(documentCount(db)).toBe(documents);

    const restarted = new Publisher(db, backends);
    expect(restarted.current).toEqual(publisher.current);
    changeOne(backends, ids[1]!, 'after the restart');
    restarted.publish([ids[1]!], 'root@example.com');
    expect(documentCount(db)).toBe(documents + 1);
    expect(new Publisher(db, backends).current).toEqual(restarted.current);
  });
});

describe('a store whose versions hold whole configs (schema version 31)', () => {
  /** Versions as Parasol wrote them until migration 032: JSON.stringify of the config's backends, in one row. */
  function oldStore(): { dataDir: string; documents: string[]; ids: string[] } {
    const dataDir = storeDir();
    mkdirSync(dataDir, { recursive: true });
    const db = new Database(storePath(dataDir));
    db.pragma('foreign_keys = ON');
    migrate(db, loadMigrations().filter((migration) => migration.version <= 31));
    const backends = new ApiBackendRepository(db);
    const ids = ['b0', 'b1', 'b2'].map((name) => backends.create(sizedConfig(name), 'root@example.com').id);
    const insert = db.prepare('INSERT INTO config_versions (published_at, publisher, document, changes, rollback_of) VALUES (?, ?, ?, ?, ?)');
    const store = (document: string, changes: object, rollbackOf: number | null = null) =>
      insert.run('2026-01-01T00:00:00.000Z', 'root@example.com', document, JSON.stringify({ new: [], modified: [], deleted: [], ...changes }), rollbackOf);
    const first = JSON.stringify(backends.list());
    store(first, { new: ['b0', 'b1', 'b2'] });
    changeOne(backends, ids[1]!, 'changed');
    const second = JSON.stringify(backends.list());
    store(second, { modified: ['b1'] });
    store('[]', { deleted: ['b0', 'b1', 'b2'] });
    store(first, { new: ['b0', 'b1', 'b2'] }, 1);
    db.close();
    return { dataDir, documents: [first, second, '[]', first], ids };
  }

  it('give back the same configs once migrated, each backend stored once, and the next publish adds only what it changed', () => {
    const { dataDir, documents, ids } = oldStore();
    const db = openStore(dataDir);
    expect(documentCount(db)).toBe(4);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    const backends = new ApiBackendRepository(db);
    const publisher = new Publisher(db, backends);

    documents.forEach((document, index) => {
      const apis = (JSON.parse(document) as ApiBackend[]).map((api) => withCurrentSettings(api, api.id));
      expect(publisher.versionConfig(index + 1)).toEqual({ version: index + 1, apis });
    });
    expect(publisher.current.version).toBe(4);
    expect(publisher.versions().map((version) => [version.id, version.rollback_of, version.changes.deleted])).toEqual([
      [4, 1, []],
      [3, null, ['b0', 'b1', 'b2']],
      [2, null, []],
      [1, null, []],
    ]);

    changeOne(backends, ids[0]!, 'after the migration');
    expect(publisher.publish([ids[0]!], 'root@example.com')!.id).toBe(5);
    expect(documentCount(db)).toBe(5);
  });
});
