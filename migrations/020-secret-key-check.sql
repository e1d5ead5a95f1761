-- An HMAC of a fixed text under the secret the store's API keys and admin
-- tokens are made with (src/store/secret-key-check.ts): a different
-- secret_key then stops start-up instead of quietly refusing every key and
-- token. Stores from before this migration get it at their next start.
CREATE TABLE secret_key_check (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  digest BLOB NOT NULL
);
