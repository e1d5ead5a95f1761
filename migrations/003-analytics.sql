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

-- Every view is a time range. The other columns let the default view's chart
-- and filters on user, IP and denied code be answered from the index alone.
CREATE INDEX analytics_logs_request_at ON analytics_logs
  (request_at, gatekeeper_denied_code, user_id, request_ip, response_time);

-- A filter on one backend reads only that backend's rows. (A user filter is
-- checked in the index above; an index led by user_id would tempt the planner
-- into slow skip-scans when grouping by user.)
CREATE INDEX analytics_logs_backend ON analytics_logs (api_backend_id, request_at);

-- Daily hits per user and per IP, kept by the writer in the same transaction as
-- the rows. Unique users/IPs and the top lists over whole days (every preset)
-- come from here instead of grouping hundreds of thousands of rows.
-- denied: 1 when gatekeeper_denied_code is set. day: floor(request_at / 86400000), UTC.
CREATE TABLE analytics_user_days (
  denied INTEGER NOT NULL,
  day INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  user_email TEXT,
  hits INTEGER NOT NULL,
  last_request_at INTEGER NOT NULL,
  PRIMARY KEY (denied, day, user_id)
) WITHOUT ROWID;

CREATE TABLE analytics_ip_days (
  denied INTEGER NOT NULL,
  day INTEGER NOT NULL,
  request_ip TEXT NOT NULL,
  hits INTEGER NOT NULL,
  PRIMARY KEY (denied, day, request_ip)
) WITHOUT ROWID;
