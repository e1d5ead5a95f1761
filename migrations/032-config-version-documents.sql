-- A published version stored the whole config, every backend, as one JSON
-- document: at 500 backends the store grew by 2.1 MB a publish, whatever the
-- publish changed, and listing the versions walked every document's
-- overflow pages to reach the columns after it. Each backend's document is
-- now stored once, in config_documents, and a version is the list of its
-- backends' documents: a publish adds the documents of the backends it
-- changed (src/publish/version-documents.ts).
--
-- The pages the old documents held stay in the file, free for new rows;
-- VACUUM (or a backup, which is one) gives them back to the disk.

CREATE TABLE config_documents (
  id INTEGER PRIMARY KEY,
  -- One backend as JSON.stringify wrote it.
  document TEXT NOT NULL
);

-- A version's backends in the order they were published (the routing
-- table's order). A version that published no backend has no row.
CREATE TABLE config_version_backends (
  version_id INTEGER NOT NULL REFERENCES config_versions(id),
  position INTEGER NOT NULL,
  document_id INTEGER NOT NULL REFERENCES config_documents(id),
  PRIMARY KEY (version_id, position)
) WITHOUT ROWID;

-- json_each gives each backend as the text JSON.stringify wrote within the
-- array (SQLite keeps strings' escapes and numbers' digits as they were), so
-- a backend that stays as it is live is found by that text at the next
-- publish and keeps its document.
INSERT INTO config_documents (document)
SELECT DISTINCT backend.value FROM config_versions AS version, json_each(version.document) AS backend;

-- Only to find each version's documents below by their text.
CREATE INDEX config_documents_moved ON config_documents (document);

INSERT INTO config_version_backends (version_id, position, document_id)
SELECT version.id, backend.key, stored.id
FROM config_versions AS version, json_each(version.document) AS backend
JOIN config_documents AS stored ON stored.document = backend.value;

DROP INDEX config_documents_moved;

-- Rewrites every row without its document; ids, and so rollback_of, stay.
ALTER TABLE config_versions DROP COLUMN document;
