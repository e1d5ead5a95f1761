-- A key may be given an end: from expires_at on (an ISO 8601 instant in
-- UTC) the gateway refuses it with API_KEY_EXPIRED. NULL: it never expires.
ALTER TABLE api_users ADD COLUMN expires_at TEXT;
