-- A key that goes to its developer by email only (signup.verify_email,
-- signup.allow_duplicate_emails: false, or a key-creator's verify_email) is
-- in no answer and is kept only as an HMAC: if its mail never arrives, nobody
-- holds it. key_delivery follows such a mail: 'pending' from the signup until
-- it is delivered (then NULL), so that a start after a stop that cut its
-- retries short gives the user a new key and mails it; 'failed' once the
-- SMTP server refused it for good or every retry failed, so that signing up
-- again with that address mails a new key instead of "already registered".
-- NULL for every other user.
ALTER TABLE api_users ADD COLUMN key_delivery TEXT CHECK (key_delivery IN ('pending', 'failed'));
CREATE INDEX api_users_key_delivery ON api_users (key_delivery) WHERE key_delivery IS NOT NULL;
