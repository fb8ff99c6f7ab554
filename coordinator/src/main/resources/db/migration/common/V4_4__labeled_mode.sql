-- The labeled mode (issue 13): per query and session who learns the intersection (JoinMode name:
-- BOTH or LABELED; rows from before take BOTH, the only mode there was) and, in labeled mode, the
-- label size both jobs pad every key's rows to (NULL in mode both); per dataset whether its owner
-- may learn an intersection (ALLOWED by default, or NEVER). Portable between SQLite and PostgreSQL;
-- one column per statement for SQLite.
ALTER TABLE datasets ADD COLUMN reveal_intersection TEXT NOT NULL DEFAULT 'ALLOWED';
ALTER TABLE queries ADD COLUMN mode TEXT NOT NULL DEFAULT 'BOTH';
ALTER TABLE queries ADD COLUMN label_bytes INTEGER;
ALTER TABLE sessions ADD COLUMN mode TEXT NOT NULL DEFAULT 'BOTH';
ALTER TABLE sessions ADD COLUMN label_bytes INTEGER;
