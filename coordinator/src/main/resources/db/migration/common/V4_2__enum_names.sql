-- Statuses, directions, decisions and phases are Java enums; the tables hold their names (PENDING,
-- OUTGOING, ...), no longer the lower-case words the API shows. local_side keeps the role's label
-- (A or B). Portable between SQLite and PostgreSQL.
UPDATE datasets SET status = UPPER(status);
UPDATE queries SET status = UPPER(status), direction = UPPER(direction);
UPDATE approvals SET decision = UPPER(decision);
UPDATE sessions SET status = UPPER(status), phase = UPPER(phase);
