-- The API users' search covers what API Umbrella's covers: besides the
-- email, names and key preview, the registration source, the roles and any
-- part of the id. The trigram index of migration 018 is made again with
-- those columns; roles are indexed as their names, one a line, so that
-- a search never matches the JSON list's own quotes and commas, nor runs
-- from one role into the next (a search box sends no line break).
DROP TRIGGER api_users_search_insert;
DROP TRIGGER api_users_search_update;
DROP TRIGGER api_users_search_delete;
DROP TABLE api_users_search;

CREATE VIRTUAL TABLE api_users_search USING fts5(
  email, first_name, last_name, api_key_preview, registration_source, roles, id,
  content = '', contentless_delete = 1, tokenize = 'trigram'
);

INSERT INTO api_users_search (rowid, email, first_name, last_name, api_key_preview, registration_source, roles, id)
SELECT k.n, u.email, u.first_name, u.last_name, u.api_key_preview, u.registration_source,
  (SELECT group_concat(role.value, char(10)) FROM json_each(u.roles) AS role), u.id
FROM api_users AS u JOIN api_user_search_keys AS k ON k.user_id = u.id;

CREATE TRIGGER api_users_search_insert AFTER INSERT ON api_users BEGIN
  INSERT INTO api_user_search_keys (user_id) VALUES (new.id);
  INSERT INTO api_users_search (rowid, email, first_name, last_name, api_key_preview, registration_source, roles, id)
  VALUES (last_insert_rowid(), new.email, new.first_name, new.last_name, new.api_key_preview, new.registration_source,
    (SELECT group_concat(role.value, char(10)) FROM json_each(new.roles) AS role), new.id);
END;

CREATE TRIGGER api_users_search_update AFTER UPDATE OF email, first_name, last_name, api_key_preview, registration_source, roles ON api_users BEGIN
  DELETE FROM api_users_search WHERE rowid = (SELECT n FROM api_user_search_keys WHERE user_id = old.id);
  INSERT INTO api_users_search (rowid, email, first_name, last_name, api_key_preview, registration_source, roles, id)
  VALUES ((SELECT n FROM api_user_search_keys WHERE user_id = new.id), new.email, new.first_name, new.last_name, new.api_key_preview,
    new.registration_source, (SELECT group_concat(role.value, char(10)) FROM json_each(new.roles) AS role), new.id);
END;

CREATE TRIGGER api_users_search_delete AFTER DELETE ON api_users BEGIN
  DELETE FROM api_users_search WHERE rowid = (SELECT n FROM api_user_search_keys WHERE user_id = old.id);
  DELETE FROM api_user_search_keys WHERE user_id = old.id;
END;
