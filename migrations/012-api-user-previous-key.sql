-- Regenerating a key may leave the replaced one working for a while, so its
-- user can switch over: its lookup prefix, HMAC and preview move here, with
-- the instant it stops (after which the gateway answers API_KEY_EXPIRED).
-- One previous key per user; NULLs when there is none.
ALTER TABLE api_users ADD COLUMN previous_api_key_prefix TEXT;
ALTER TABLE api_users ADD COLUMN previous_api_key_hash BLOB;
ALTER TABLE api_users ADD COLUMN previous_api_key_preview TEXT;
ALTER TABLE api_users ADD COLUMN previous_api_key_expires_at TEXT;
