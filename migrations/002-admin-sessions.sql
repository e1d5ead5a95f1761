-- Web admin sessions. The cookie holds a random id; only its SHA-256 is kept
-- here, so a copy of the database signs nobody in. Times are epoch ms.
CREATE TABLE admin_sessions (
  id_hash TEXT PRIMARY KEY,
  admin_id TEXT NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX admin_sessions_admin_id ON admin_sessions (admin_id);
CREATE INDEX admin_sessions_last_seen_at ON admin_sessions (last_seen_at);
