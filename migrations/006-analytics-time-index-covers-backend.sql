-- The backend now rides in the time index instead of an index of its own.
-- analytics_logs_backend put each new row into the middle of its backend's
-- run of the index: with a thousand backends every batch dirtied a page per
-- backend, and the writer spent 10-12 µs an entry instead of under 5. A
-- filter on one backend now reads its time range from the index alone, as
-- the default view does (1,000,000 entries: bench/analytics-queries.ts).
DROP INDEX analytics_logs_backend;
DROP INDEX analytics_logs_request_at;
CREATE INDEX analytics_logs_request_at ON analytics_logs
  (request_at, gatekeeper_denied_code, user_id, request_ip, response_time, api_backend_id);
