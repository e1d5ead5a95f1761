-- Two more fields API Umbrella logs: the request's Origin header and the
-- Content-Type of the response the client got. Both go in the client's
-- context rather than on each request row: the origin is the calling page's,
-- and one client calling one API gets the same type of answer request after
-- request. On the rows they cost the writer about 0.2 µs and 33 bytes an
-- entry (`npm run bench:analytics-writer`, "application/json; charset=utf-8"),
-- in the context nothing for such runs. A client whose answers alternate
-- between types has a context per type; one whose every answer has a type of
-- its own (a multipart boundary) gets a context per request, which costs what
-- a new client costs. Both fields are null for the entries stored before.
--
-- A context's hash now covers both: a client's next request after this
-- migration adds its context again (as after migration 16), and the context
-- stored before stays until retention deletes it.
ALTER TABLE analytics_contexts ADD COLUMN request_origin TEXT;
ALTER TABLE analytics_contexts ADD COLUMN response_content_type TEXT;

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
       r.context_id AS context_id
FROM analytics_requests AS r;
