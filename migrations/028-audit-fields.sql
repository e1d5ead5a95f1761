-- API Umbrella's audit fields of API users and admins.
--
-- API users: who changed one last (updated_by, holding what created_by
-- holds: an admin's id; for a signup null, or the key creator's user id) and
-- since when it is disabled (disabled_at; null while it is enabled). Users disabled before this migration were disabled
-- at their last recorded change or earlier, and when is not known: they get
-- their updated_at.
ALTER TABLE api_users ADD COLUMN updated_by TEXT;
ALTER TABLE api_users ADD COLUMN disabled_at TEXT;
UPDATE api_users SET disabled_at = updated_at WHERE enabled = 0;
-- The web admin recorded its admin's email as created_by where the admin API
-- records their id, as API Umbrella does; the email of an admin who is still
-- there becomes their id, so that the admin API can answer who created the
-- user (creator). An email of an admin since deleted stays as it is.
-- (Compared under the email column's NOCASE: emails stored before migration
-- 022 may differ from the admin's in the case of A-Z.)
UPDATE api_users SET created_by = (SELECT id FROM admins WHERE admins.email = api_users.created_by)
  WHERE EXISTS (SELECT 1 FROM admins WHERE admins.email = api_users.created_by);
-- Who changed a user last is known only of those unchanged since their creation.
UPDATE api_users SET updated_by = created_by WHERE updated_at = created_at;

-- Admins: Devise's trackable fields as API Umbrella keeps them. At each
-- sign-in last_sign_in_at and last_sign_in_ip take the current ones, which
-- become the time and client IP of this sign-in, and sign_in_count goes up.
-- last_sign_in_at was the latest sign-in: it is current_sign_in_at now, and
-- stays as last_sign_in_at too, the sign-in before it not being known (as
-- Devise takes the current one for the last when there is none before). That
-- sign-in counts as one; earlier ones were not counted. No IP was kept.
ALTER TABLE admins ADD COLUMN current_sign_in_at TEXT;
ALTER TABLE admins ADD COLUMN sign_in_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE admins ADD COLUMN current_sign_in_ip TEXT;
ALTER TABLE admins ADD COLUMN last_sign_in_ip TEXT;
UPDATE admins SET current_sign_in_at = last_sign_in_at, sign_in_count = 1 WHERE last_sign_in_at IS NOT NULL;
