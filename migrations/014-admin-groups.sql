-- Admins who are not superusers act only through admin groups, as in API
-- Umbrella: a group grants permissions (analytics, user_view, …) within API
-- scopes, each a host and a path prefix. Superusers ignore all of this.
CREATE TABLE api_scopes (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  -- Lowercase; without a port it covers the host on any port.
  host TEXT NOT NULL,
  path_prefix TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (host, path_prefix)
);

CREATE TABLE admin_groups (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  -- A JSON array of permission ids (src/admin-groups/model.ts).
  permission_ids TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- A scope in use by a group cannot be deleted (RESTRICT): the group would
-- silently lose what it covers.
CREATE TABLE admin_group_scopes (
  admin_group_id TEXT NOT NULL REFERENCES admin_groups(id) ON DELETE CASCADE,
  api_scope_id TEXT NOT NULL REFERENCES api_scopes(id) ON DELETE RESTRICT,
  PRIMARY KEY (admin_group_id, api_scope_id)
) WITHOUT ROWID;
CREATE INDEX admin_group_scopes_scope ON admin_group_scopes (api_scope_id);

CREATE TABLE admin_group_members (
  admin_group_id TEXT NOT NULL REFERENCES admin_groups(id) ON DELETE CASCADE,
  admin_id TEXT NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
  PRIMARY KEY (admin_id, admin_group_id)
) WITHOUT ROWID;
CREATE INDEX admin_group_members_group ON admin_group_members (admin_group_id);
