-- A user whose key ends soon is told once by email (mailer.key_expiry_notice_days):
-- the end they were told of is kept, so a moved end is told again. The
-- partial index finds the few users with an end without reading every user.
ALTER TABLE api_users ADD COLUMN expiry_notice_sent_for TEXT;
CREATE INDEX api_users_expires_at ON api_users (expires_at) WHERE expires_at IS NOT NULL;
