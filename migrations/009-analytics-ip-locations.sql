-- Where each logged client IP is, by the GeoIP database of analytics.geoip_file,
-- as of the IP's latest logged request: By Location sums the per-IP hits of a
-- view (from analytics_ip_days, or the rows) by these columns. One row per IP
-- instead of columns on every entry keeps the writer's cost per entry as it is;
-- pruning drops the IPs no longer in analytics_ip_days. IPs the database does
-- not place (private networks) have no row.
CREATE TABLE analytics_ip_locations (
  request_ip TEXT PRIMARY KEY,
  country TEXT NOT NULL,
  region TEXT,
  region_name TEXT,
  city TEXT,
  latitude REAL,
  longitude REAL
) WITHOUT ROWID;
