-- Whether an API user has shown they own their email address (API Umbrella's
-- email_verified), for backends whose api_key_verification_level asks for it.
-- A user counts as verified when their key went to them by email only, or
-- when an operator made it. Users made before this column existed are marked
-- so only when an operator made them: created_by is then an admin's id or
-- email (of an admin who may since be gone) or "cli". A signup's created_by
-- is empty (the form) or the key-creator user's id (the JSON API), and
-- whether its key was shown on the page or mailed is not known.
ALTER TABLE api_users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0;
UPDATE api_users SET email_verified = 1
  WHERE created_by IS NOT NULL AND created_by NOT IN (SELECT id FROM api_users);
