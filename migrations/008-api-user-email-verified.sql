-- Whether an API user has shown they own their email address (API Umbrella's
-- email_verified), for backends whose api_key_verification_level asks for it.
-- A user counts as verified when their key went to them by email only, or
-- when an operator made it. Users made before this column existed are marked
-- so only when an operator made them (an admin, by id or by email, or the
-- CLI): whether a signup's key was shown on the page or mailed is not known.
ALTER TABLE api_users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0;
UPDATE api_users SET email_verified = 1
  WHERE created_by = 'cli'
     OR created_by IN (SELECT id FROM admins)
     OR lower(created_by) IN (SELECT lower(email) FROM admins);
