-- Drafts of API backends: the operator's working copy. The document column
-- holds the ApiBackendConfig as JSON; publish copies it into a config version.
CREATE TABLE api_backends (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  document TEXT NOT NULL,
  sort_order INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  created_by TEXT,
  updated_by TEXT
);

-- Each publish stores the whole published config; the newest row is live.
CREATE TABLE config_versions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  published_at TEXT NOT NULL,
  publisher TEXT,
  document TEXT NOT NULL,
  changes TEXT NOT NULL,
  rollback_of INTEGER REFERENCES config_versions(id)
);

-- API users; the key itself is never stored: only an HMAC and a lookup prefix.
CREATE TABLE api_users (
  id TEXT PRIMARY KEY,
  api_key_prefix TEXT NOT NULL UNIQUE,
  api_key_hash BLOB NOT NULL,
  api_key_preview TEXT NOT NULL,
  email TEXT NOT NULL,
  first_name TEXT,
  last_name TEXT,
  website TEXT,
  use_description TEXT,
  roles TEXT NOT NULL DEFAULT '[]',
  enabled INTEGER NOT NULL DEFAULT 1,
  settings TEXT NOT NULL DEFAULT '{}',
  registration_source TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  created_by TEXT
);
CREATE INDEX api_users_email ON api_users (email COLLATE NOCASE);
CREATE INDEX api_users_created_at ON api_users (created_at);

CREATE TABLE admins (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT,
  superuser INTEGER NOT NULL DEFAULT 0,
  enabled INTEGER NOT NULL DEFAULT 1,
  auth_token_prefix TEXT UNIQUE,
  auth_token_hash BLOB,
  auth_token_preview TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_sign_in_at TEXT
);

CREATE TABLE sequences (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT INTO sequences (name, value) VALUES ('api_backend_sort_order', 0);
