// Backends stored before embedded records had ids (drafts and published
// versions) are read with ids: the same on every read and every connection,
// without the stored documents being rewritten.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiBackendRepository } from '../../src/api-backends/repository.js';
import type { ApiBackend, ApiBackendConfig } from '../../src/api-backends/model.js';
import { Publisher } from '../../src/publish/publisher.js';
import { openStore, type Db } from '../../src/store/db.js';
import { tempDir } from '../helpers/config.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A backend document as Parasol wrote it before embedded ids (and before some settings it has now). */
const WITHOUT_IDS = {
  name: 'Legacy',
  frontend_host: 'api.example.com',
  backend_host: 'example.com',
  backend_protocol: 'http',
  balance_algorithm: 'least_conn',
  servers: [{ host: '10.0.0.1', port: 80 }],
  url_matches: [{ frontend_prefix: '/legacy/', backend_prefix: '/' }],
  settings: { headers: [{ key: 'X-A', value: '1' }], rate_limit_mode: 'custom', rate_limits: [{ duration: 1000, limit_by: 'ip', limit: 5, response_headers: false }] },
  sub_settings: [{ http_method: 'any', regex: '^/sub', settings: { override_response_headers: [{ key: 'X-B', value: '2' }] } }],
  rewrites: [{ matcher_type: 'route', http_method: 'any', frontend_matcher: '/a', backend_replacement: '/1' }],
};

/** Each embedded record's id, in document order. */
function idsOf(api: ApiBackendConfig): string[] {
  const settingsIds = (settings: ApiBackendConfig['settings']) =>
    [settings.headers, settings.default_response_headers, settings.override_response_headers, settings.rate_limits].flat().map((record) => record.id);
  return [
    ...[api.servers, api.url_matches, api.rewrites, api.sub_settings].flat().map((record) => record.id),
    ...settingsIds(api.settings),
    ...api.sub_settings.flatMap((sub) => settingsIds(sub.settings)),
  ];
}

function storeDir(): string {
  return join(tempDir('parasol-embedded-ids-'), 'data');
}

function storeDraft(db: Db, id: string, document: object = WITHOUT_IDS): void {
  db.prepare("INSERT INTO api_backends (id, name, document, sort_order, created_at, updated_at) VALUES (?, 'Legacy', ?, 0, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')").run(id, JSON.stringify(document));
}

describe('embedded records stored without ids', () => {
  it('get UUIDs on read, the same on every read and through another connection, and distinct between backends', () => {
    const dataDir = storeDir();
    const db = openStore(dataDir);
    storeDraft(db, 'legacy-1');
    storeDraft(db, 'legacy-2');
    const backends = new ApiBackendRepository(db);
    const ids = idsOf(backends.get('legacy-1')!);
    expect(ids).toHaveLength(7);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
    expect(idsOf(backends.list().find((api) => api.id === 'legacy-1')!)).toEqual(ids);
    expect(idsOf(new ApiBackendRepository(openStore(dataDir)).get('legacy-1')!)).toEqual(ids);
    expect(idsOf(backends.get('legacy-2')!).filter((id) => ids.includes(id))).toEqual([]);
  });

  it('keep the ids a document has', () => {
    const db = openStore(storeDir());
    const kept = '7d1c1d0e-2f0a-4c55-9d0b-3f5b8e7a1c22';
    storeDraft(db, 'legacy', { ...WITHOUT_IDS, servers: [{ id: kept, host: '10.0.0.1', port: 80 }] });
    expect(new ApiBackendRepository(db).get('legacy')!.servers[0]!.id).toBe(kept);
  });

  it('in a published version get the ids of the draft, the version staying as it was stored', () => {
    const dataDir = storeDir();
    const db = openStore(dataDir);
    storeDraft(db, 'legacy');
    const published = JSON.stringify({ ...WITHOUT_IDS, id: 'legacy', sort_order: 0, created_at: '2024-01-01T00:00:00.000Z', updated_at: '2024-01-01T00:00:00.000Z', created_by: null, updated_by: null });
    const { lastInsertRowid: versionId } = db
      .prepare("INSERT INTO config_versions (published_at, publisher, changes) VALUES ('2024-01-02T00:00:00.000Z', 'old', ?)")
      .run(JSON.stringify({ new: ['Legacy'], modified: [], deleted: [] }));
    const { lastInsertRowid: documentId } = db.prepare('INSERT INTO config_documents (document) VALUES (?)').run(published);
    db.prepare('INSERT INTO config_version_backends (version_id, position, document_id) VALUES (?, 0, ?)').run(versionId, documentId);
    const backends = new ApiBackendRepository(db);
    const publisher = new Publisher(db, backends);
    const live: ApiBackend = publisher.current.apis[0]!;
    for (const id of idsOf(live)) expect(id).toMatch(UUID);
    expect(idsOf(live)).toEqual(idsOf(backends.get('legacy')!));
    expect(idsOf(publisher.versionConfig(publisher.current.version!)!.apis[0]!)).toEqual(idsOf(live));
    expect(publisher.pendingChanges().identical.map((change) => change.id)).toEqual(['legacy']);
    expect(db.prepare('SELECT document FROM config_documents').pluck().all()).toEqual([published]);
  });
});
