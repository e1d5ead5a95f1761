-- Who called and how (method, scheme, IP, user agent, backend, user, email,
-- key) is the same request after request from one client: it is now
-- stored once per client, in analytics_contexts, and each request row points
-- at it. In `npm run bench:analytics-writer`, runs of one client's requests
-- take 154 bytes an entry on disk instead of 395, and the writer thread, which
-- shares the CPU with the proxy, 1.8-2.2 µs an entry instead of 2.5-3.0; a
-- thousand clients taking turns, 3.8-4.2 µs instead of 5.3-7.6. A new client
-- for every request costs more than before (its context is added too).
--
-- This migration rewrites every stored entry (about 5 s a million). The
-- pages the old table held stay in the file, free for new entries; VACUUM
-- gives them back to the disk.
--
-- analytics_logs stays as a view with the columns it had, so every query
-- reads entries as before. Each context column is a lookup by the context's
-- primary key, made only where a query reads that column: the default view's
-- chart and counts read no context at all (a LEFT JOIN would be made for
-- every row of an aggregate: SQLite drops an unused join only from a plain
-- SELECT).
--
-- The denied code stays on the row, in the time index: the default view
-- hides denied requests and counts the rest from the index alone. So does the
-- host, which API Drilldown and admins' API scopes read with the path.

CREATE TABLE analytics_contexts (
  id INTEGER PRIMARY KEY,
  request_method TEXT NOT NULL,
  request_scheme TEXT NOT NULL,
  request_ip TEXT NOT NULL,
  request_user_agent TEXT,
  api_backend_id TEXT NOT NULL,
  user_id TEXT,
  user_email TEXT,
  api_key_preview TEXT,
  -- The writer's hash of the strings (contextHash in src/analytics/entry-batch.ts),
  -- by which it finds a context its cache does not hold. Contexts moved here
  -- from the rows below have none: a client's next request adds its context again.
  hash INTEGER,
  -- The UTC day of the context's latest request (floor(request_at / 86400000)):
  -- retention deletes a context once no kept request can point at it.
  last_day INTEGER NOT NULL
);

-- The writer finds a client's context here when its own cache does not have
-- it (after a restart, or once more clients than it keeps have called).
CREATE INDEX analytics_contexts_hash ON analytics_contexts (hash);
CREATE INDEX analytics_contexts_last_day ON analytics_contexts (last_day);

INSERT INTO analytics_contexts
  (request_method, request_scheme, request_ip, request_user_agent, api_backend_id, user_id, user_email, api_key_preview, last_day)
SELECT request_method, request_scheme, request_ip, request_user_agent, api_backend_id, user_id, user_email, api_key_preview,
       max(request_at) / 86400000
FROM analytics_logs
GROUP BY request_method, request_scheme, request_ip, request_user_agent, api_backend_id, user_id, user_email, api_key_preview;

-- Only to move the rows below: each row finds its context by its strings.
CREATE INDEX analytics_contexts_moved ON analytics_contexts
  (request_ip, user_id, request_user_agent, api_backend_id, request_method, request_scheme, user_email, api_key_preview);

CREATE TABLE analytics_requests (
  id INTEGER PRIMARY KEY,
  request_at INTEGER NOT NULL,
  context_id INTEGER NOT NULL,
  request_id TEXT NOT NULL,
  request_host TEXT NOT NULL,
  request_path TEXT NOT NULL,
  request_url_query TEXT NOT NULL,
  request_referer TEXT,
  gatekeeper_denied_code TEXT,
  request_size INTEGER NOT NULL,
  response_status INTEGER NOT NULL,
  response_size INTEGER NOT NULL,
  response_time REAL NOT NULL,
  upstream_time REAL,
  gateway_overhead REAL NOT NULL
);

INSERT INTO analytics_requests
  (id, request_at, context_id, request_id, request_host, request_path, request_url_query, request_referer, gatekeeper_denied_code,
   request_size, response_status, response_size, response_time, upstream_time, gateway_overhead)
SELECT l.id, l.request_at, c.id, l.request_id, l.request_host, l.request_path, l.request_url_query, l.request_referer, l.gatekeeper_denied_code,
       l.request_size, l.response_status, l.response_size, l.response_time, l.upstream_time, l.gateway_overhead
FROM analytics_logs AS l
JOIN analytics_contexts AS c
  ON c.request_ip = l.request_ip AND c.user_id IS l.user_id AND c.request_user_agent IS l.request_user_agent
 AND c.api_backend_id = l.api_backend_id AND c.request_method = l.request_method
 AND c.request_scheme = l.request_scheme AND c.user_email IS l.user_email AND c.api_key_preview IS l.api_key_preview;

DROP TABLE analytics_logs;
DROP INDEX analytics_contexts_moved;

-- Every view is a time range; the default one hides denied requests and sums
-- response times, all from this index.
CREATE INDEX analytics_requests_request_at ON analytics_requests (request_at, gatekeeper_denied_code, context_id, response_time);

CREATE VIEW analytics_logs AS
SELECT
       r.id AS id,
       r.request_id AS request_id,
       r.request_at AS request_at,
       (SELECT request_method FROM analytics_contexts AS c WHERE c.id = r.context_id) AS request_method,
       (SELECT request_scheme FROM analytics_contexts AS c WHERE c.id = r.context_id) AS request_scheme,
       r.request_host AS request_host,
       r.request_path AS request_path,
       r.request_url_query AS request_url_query,
       (SELECT request_ip FROM analytics_contexts AS c WHERE c.id = r.context_id) AS request_ip,
       (SELECT request_user_agent FROM analytics_contexts AS c WHERE c.id = r.context_id) AS request_user_agent,
       r.request_referer AS request_referer,
       r.request_size AS request_size,
       r.response_status AS response_status,
       r.response_size AS response_size,
       r.response_time AS response_time,
       r.upstream_time AS upstream_time,
       r.gateway_overhead AS gateway_overhead,
       (SELECT api_backend_id FROM analytics_contexts AS c WHERE c.id = r.context_id) AS api_backend_id,
       (SELECT user_id FROM analytics_contexts AS c WHERE c.id = r.context_id) AS user_id,
       (SELECT user_email FROM analytics_contexts AS c WHERE c.id = r.context_id) AS user_email,
       (SELECT api_key_preview FROM analytics_contexts AS c WHERE c.id = r.context_id) AS api_key_preview,
       r.gatekeeper_denied_code AS gatekeeper_denied_code,
       r.context_id AS context_id
FROM analytics_requests AS r;
