-- The users list (admin API) takes API Umbrella's orders: by email, first
-- name, last name, use description, registration source, created_at and
-- updated_at, either way, ties by the row. Without an index in that order
-- SQLite read and sorted every row: with 100,000 users 20-30 ms for the first
-- page and 400-800 ms for one 99,000 rows deep, on the event loop the proxy
-- shares. Along these indexes (read forwards or backwards; email has its own
-- since migration 001, created_at since 019) a page takes 0.3 ms, one
-- 99,000 rows deep 2-3 ms. Texts are ordered ignoring case, as the list
-- orders them; the rowid each index ends with breaks ties, so the indexes
-- hold no copy of the id. They add some 16 MB to a store of 100,000 users
-- whose use descriptions are 120 characters long on average, 9 MB of it the
-- descriptions'.
CREATE INDEX api_users_first_name ON api_users (first_name COLLATE NOCASE);
CREATE INDEX api_users_last_name ON api_users (last_name COLLATE NOCASE);
CREATE INDEX api_users_use_description ON api_users (use_description COLLATE NOCASE);
CREATE INDEX api_users_registration_source ON api_users (registration_source COLLATE NOCASE);
CREATE INDEX api_users_updated_at ON api_users (updated_at);

-- The admin API's user_roles: the roles users hold. Few users hold any, so
-- the index holds only theirs, and the roles are read from it rather than
-- from every row (0.2 ms with 100,000 users, where reading them took 17-20).
CREATE INDEX api_users_with_roles ON api_users (roles) WHERE roles <> '[]';
