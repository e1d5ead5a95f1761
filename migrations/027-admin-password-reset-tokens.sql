-- API Umbrella's "Forgot password" and admin invitations: a one-time link
-- mailed to the admin, whose token is kept only as HMAC-SHA256(secret_key,
-- token), as API keys and admin tokens are, so a copy of the store resets
-- nobody's password. One token an admin at most (a new one replaces it), the
-- time it was made (epoch ms) and what it is for: a reset link is good for
-- 6 hours, an invite for 7 days (src/admins/password-tokens.ts). The partial
-- unique index finds the admin by the HMAC of the token presented and holds
-- only the few admins with a link pending.
ALTER TABLE admins ADD COLUMN reset_password_token_hash BLOB;
ALTER TABLE admins ADD COLUMN reset_password_sent_at INTEGER;
ALTER TABLE admins ADD COLUMN reset_password_kind TEXT CHECK (reset_password_kind IN ('reset', 'invite'));
CREATE UNIQUE INDEX admins_reset_password_token_hash ON admins (reset_password_token_hash) WHERE reset_password_token_hash IS NOT NULL;
