-- Every write to a draft backend bumps one counter, so that the drafts parsed
-- for the admin's pages are kept until a backend changes, whoever changes it
-- (this process, the CLI), and not thrown away at every commit another
-- connection makes to the store: the analytics writer commits every 250 ms.
INSERT INTO sequences (name, value) VALUES ('api_backend_change', 0);
CREATE TRIGGER api_backends_change_insert AFTER INSERT ON api_backends BEGIN
  UPDATE sequences SET value = value + 1 WHERE name = 'api_backend_change';
END;
CREATE TRIGGER api_backends_change_update AFTER UPDATE ON api_backends BEGIN
  UPDATE sequences SET value = value + 1 WHERE name = 'api_backend_change';
END;
CREATE TRIGGER api_backends_change_delete AFTER DELETE ON api_backends BEGIN
  UPDATE sequences SET value = value + 1 WHERE name = 'api_backend_change';
END;
