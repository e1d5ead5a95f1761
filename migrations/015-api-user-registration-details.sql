-- Who a user signed up from, as API Umbrella records it: the client's IP
-- (through trusted proxies), user agent, referer and origin at creation,
-- shown to admins (a signup wave from one address or page stands out). Users
-- made before this migration, or from the command line, have none.
ALTER TABLE api_users ADD COLUMN registration_ip TEXT;
ALTER TABLE api_users ADD COLUMN registration_user_agent TEXT;
ALTER TABLE api_users ADD COLUMN registration_referer TEXT;
ALTER TABLE api_users ADD COLUMN registration_origin TEXT;
