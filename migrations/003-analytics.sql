-- One row per request that matched an API backend (see src/analytics/log-entry.ts).
-- Times are milliseconds since the epoch; durations are milliseconds.
CREATE TABLE analytics_logs (
  id INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL,
  request_at INTEGER NOT NULL,
  request_method TEXT NOT NULL,
  request_scheme TEXT NOT NULL,
  request_host TEXT NOT NULL,
  request_path TEXT NOT NULL,
  request_url_query TEXT NOT NULL,
  request_ip TEXT NOT NULL,
  request_user_agent TEXT,
  request_referer TEXT,
  request_size INTEGER NOT NULL,
  response_status INTEGER NOT NULL,
  response_size INTEGER NOT NULL,
  response_time REAL NOT NULL,
  upstream_time REAL,
  gateway_overhead REAL NOT NULL,
  api_backend_id TEXT NOT NULL,
  user_id TEXT,
  user_email TEXT,
  api_key_preview TEXT,
  gatekeeper_denied_code TEXT
);

-- Every view is a time range. This index also covers the default view's
-- highlights and chart (denied filter, users, IPs, response time), so they are
-- answered from the index without reading the rows.
CREATE INDEX analytics_logs_request_at ON analytics_logs
  (request_at, gatekeeper_denied_code, user_id, request_ip, response_time);

-- The common filters: one user, one backend.
CREATE INDEX analytics_logs_user ON analytics_logs (user_id, request_at);
CREATE INDEX analytics_logs_backend ON analytics_logs (api_backend_id, request_at);
