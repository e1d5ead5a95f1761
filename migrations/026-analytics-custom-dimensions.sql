-- API Umbrella's custom dimensions: a backend may name up to three values
-- of its own for a request in the response headers
-- X-Api-Umbrella-Analytics-Custom1..3, which the gateway keeps from the
-- client and logs as response_custom1..3 (400 characters at most), as API
-- Umbrella does. Few backends set them, so they live in a table of their
-- own, one row for a request that has any: three NULL columns on every
-- request's row cost the writer thread about 3 % more CPU an entry (and 3
-- bytes; interleaved runs of npm run bench:analytics-writer), which the proxy
-- would pay on a saturated machine. A request's row going
-- (retention) takes its dimensions with it. Entries stored before have none.
CREATE TABLE analytics_request_dimensions (
  request_row INTEGER PRIMARY KEY REFERENCES analytics_requests (id) ON DELETE CASCADE,
  response_custom1 TEXT,
  response_custom2 TEXT,
  response_custom3 TEXT
);

DROP VIEW analytics_logs;
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
       (SELECT request_origin FROM analytics_contexts AS c WHERE c.id = r.context_id) AS request_origin,
       r.request_size AS request_size,
       r.response_status AS response_status,
       r.response_size AS response_size,
       (SELECT response_content_type FROM analytics_contexts AS c WHERE c.id = r.context_id) AS response_content_type,
       r.response_time AS response_time,
       r.upstream_time AS upstream_time,
       r.gateway_overhead AS gateway_overhead,
       (SELECT api_backend_id FROM analytics_contexts AS c WHERE c.id = r.context_id) AS api_backend_id,
       (SELECT user_id FROM analytics_contexts AS c WHERE c.id = r.context_id) AS user_id,
       (SELECT user_email FROM analytics_contexts AS c WHERE c.id = r.context_id) AS user_email,
       (SELECT api_key_preview FROM analytics_contexts AS c WHERE c.id = r.context_id) AS api_key_preview,
       r.gatekeeper_denied_code AS gatekeeper_denied_code,
       (SELECT response_custom1 FROM analytics_request_dimensions AS d WHERE d.request_row = r.id) AS response_custom1,
       (SELECT response_custom2 FROM analytics_request_dimensions AS d WHERE d.request_row = r.id) AS response_custom2,
       (SELECT response_custom3 FROM analytics_request_dimensions AS d WHERE d.request_row = r.id) AS response_custom3,
       r.context_id AS context_id
FROM analytics_requests AS r;
