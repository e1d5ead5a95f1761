-- API Umbrella's admins have a name and notes (free text its admin API
-- takes and answers), and their username (here the email) is lowercased
-- when saved. Existing emails are lowercased the same way: SQLite's lower()
-- folds A-Z only, as the column's NOCASE collation compares them, and that
-- column has been UNIQUE COLLATE NOCASE since migration 001, so no two rows
-- can differ in the case of A-Z alone and none can collide here. Other
-- letters (É, é) are kept as typed, as the application keeps them.
ALTER TABLE admins ADD COLUMN name TEXT;
ALTER TABLE admins ADD COLUMN notes TEXT;
-- (Compared as bytes: under the column's NOCASE every email equals its lower().)
UPDATE admins SET email = lower(email) WHERE email COLLATE BINARY <> lower(email);
