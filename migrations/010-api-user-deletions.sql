-- Deleting an API user removes its row, key and personal details; what stays
-- is its id and the change number of the deletion, so a running gateway
-- whose key index learns of changes by number (migration 005) also learns
-- that the key has gone, when another process (the CLI) deleted it.
CREATE TABLE api_user_deletions (
  id TEXT PRIMARY KEY,
  change_seq INTEGER NOT NULL,
  deleted_at TEXT NOT NULL,
  deleted_by TEXT
) WITHOUT ROWID;
CREATE INDEX api_user_deletions_change_seq ON api_user_deletions (change_seq);
