// A config version's backends, each stored once as a document that later
// versions share (migration 032): a publish adds the documents of the
// backends it changed, not the whole config again.
import { withCurrentSettings, type ApiBackend } from '../api-backends/model.js';
import type { Db } from '../store/db.js';

/**
 * Document ids by the backend object they were read as or stored from: a
 * publish keeps the objects of the backends it leaves alone, which so keep
 * their documents. A document is never changed nor deleted, so an id found
 * here stays right whoever publishes meanwhile.
 */
export type DocumentIds = ReadonlyMap<ApiBackend, number>;

/** A version's backends, in the order they were published (as the current model: see withCurrentSettings), with their documents. */
export function versionBackends(db: Db, versionId: number): { readonly apis: ApiBackend[]; readonly documents: DocumentIds } {
  const rows = db
    .prepare(
      `SELECT stored.id AS documentId, stored.document FROM config_version_backends AS backend
       JOIN config_documents AS stored ON stored.id = backend.document_id
       WHERE backend.version_id = ? ORDER BY backend.position`,
    )
    .all(versionId) as { documentId: number; document: string }[];
  const documents = new Map<ApiBackend, number>();
  const apis = rows.map(({ documentId, document }) => {
    const stored = JSON.parse(document) as ApiBackend;
    const api = withCurrentSettings(stored, stored.id);
    documents.set(api, documentId);
    return api;
  });
  return { apis, documents };
}

/** Stores a new version's backends: one in `known` points at its document, any other adds its own. Returns the version's documents. */
export function storeVersionBackends(db: Db, versionId: number, apis: readonly ApiBackend[], known: DocumentIds): DocumentIds {
  const addDocument = db.prepare('INSERT INTO config_documents (document) VALUES (?)');
  const addBackend = db.prepare('INSERT INTO config_version_backends (version_id, position, document_id) VALUES (?, ?, ?)');
  const stored = new Map<ApiBackend, number>();
  apis.forEach((api, position) => {
    const documentId = known.get(api) ?? Number(addDocument.run(JSON.stringify(api)).lastInsertRowid);
    addBackend.run(versionId, position, documentId);
    stored.set(api, documentId);
  });
  return stored;
}
