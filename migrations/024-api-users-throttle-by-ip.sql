-- API Umbrella's per-user throttle_by_ip: the user's key is shared (a demo
-- key, a key inside a public web page), so its limits by api_key count per
-- client IP instead of once for everybody who holds the key.
ALTER TABLE api_users ADD COLUMN throttle_by_ip INTEGER NOT NULL DEFAULT 0 CHECK (throttle_by_ip IN (0, 1));
