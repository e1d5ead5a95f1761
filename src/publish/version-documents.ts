// A config version's backends, each stored once as a document that later
// versions share (migration 032): a publish adds the documents of the
// backends it changed, not the whole config again.
import type { ApiBackend } from '../api-backends/model.js';
import type { Db } from '../store/db.js';

/**
 * Stored backends' document ids by their JSON text: those a new version may
 * point at instead of adding one. A document is never changed nor deleted, so
 * an id found here stays right whoever publishes meanwhile.
 */
export type DocumentIds = ReadonlyMap<string, number>;

export interface StoredBackend {
  readonly documentId: number;
  readonly document: string;
}

/** A published backend's text, kept per object: a publish keeps every backend it leaves alone as the same frozen object. */
const textOf = new WeakMap<ApiBackend, string>();

function documentText(api: ApiBackend): string {
  let text = textOf.get(api);
  if (text === undefined) {
    text = JSON.stringify(api);
    textOf.set(api, text);
  }
  return text;
}

/** A version's backends in the order they were published. */
export function versionBackends(db: Db, versionId: number): StoredBackend[] {
  return db
    .prepare(
      `SELECT stored.id AS documentId, stored.document FROM config_version_backends AS backend
       JOIN config_documents AS stored ON stored.id = backend.document_id
       WHERE backend.version_id = ? ORDER BY backend.position`,
    )
    .all(versionId) as StoredBackend[];
}

export function documentIds(backends: readonly StoredBackend[]): DocumentIds {
  return new Map(backends.map((backend) => [backend.document, backend.documentId]));
}

/**
 * Stores a new version's backends: one whose text is in `known` points at
 * that document, any other adds its own. Returns the version's documents, for
 * the version after it.
 */
export function storeVersionBackends(db: Db, versionId: number, apis: readonly ApiBackend[], known: DocumentIds): DocumentIds {
  const addDocument = db.prepare('INSERT INTO config_documents (document) VALUES (?)');
  const addBackend = db.prepare('INSERT INTO config_version_backends (version_id, position, document_id) VALUES (?, ?, ?)');
  const stored = new Map<string, number>();
  apis.forEach((api, position) => {
    const text = documentText(api);
    const documentId = known.get(text) ?? Number(addDocument.run(text).lastInsertRowid);
    addBackend.run(versionId, position, documentId);
    stored.set(text, documentId);
  });
  return stored;
}
