-- Append-only: the coordinator only ever INSERTs; the triggers refuse UPDATE, DELETE and TRUNCATE.
CREATE TABLE audit_log (
  seq         BIGSERIAL PRIMARY KEY,
  at          BIGINT    NOT NULL,
  actor       TEXT      NOT NULL,
  action      TEXT      NOT NULL,
  object_type TEXT      NOT NULL,
  object_id   TEXT      NOT NULL,
  detail      TEXT
);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END
$$;

CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
