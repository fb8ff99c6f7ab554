-- Append-only: the coordinator only ever INSERTs; these triggers refuse UPDATE and DELETE.
CREATE TABLE audit_log (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  at          BIGINT  NOT NULL,
  actor       TEXT    NOT NULL,
  action      TEXT    NOT NULL,
  object_type TEXT    NOT NULL,
  object_id   TEXT    NOT NULL,
  detail      TEXT
);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;

CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
