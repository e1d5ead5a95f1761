-- Every write to an API user takes the next change number, so a running
-- gateway can pick up users changed by another process (the CLI) by asking
-- for the rows past the last number it has seen.
ALTER TABLE api_users ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX api_users_change_seq ON api_users (change_seq);
INSERT INTO sequences (name, value) VALUES ('api_user_change', 0);
