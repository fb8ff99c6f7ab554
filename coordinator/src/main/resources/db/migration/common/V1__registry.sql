-- Portable between SQLite and PostgreSQL: TEXT, INTEGER, BIGINT; times are epoch milliseconds;
-- lists (columns, schemas) are JSON text.

CREATE TABLE datasets (
  name           TEXT    NOT NULL PRIMARY KEY,
  location       TEXT    NOT NULL,
  format         TEXT    NOT NULL,
  schema_json    TEXT    NOT NULL,
  key_columns    TEXT    NOT NULL,
  reveal_columns TEXT    NOT NULL,
  filter_columns TEXT    NOT NULL,
  status         TEXT    NOT NULL,
  created_at     BIGINT  NOT NULL,
  retired_at     BIGINT
);

CREATE TABLE queries (
  id                 TEXT    NOT NULL PRIMARY KEY,
  direction          TEXT    NOT NULL,
  requester          TEXT    NOT NULL,
  approver           TEXT    NOT NULL,
  local_side         TEXT    NOT NULL,
  local_dataset      TEXT    NOT NULL,
  peer_dataset       TEXT    NOT NULL,
  sql_text           TEXT    NOT NULL,
  fingerprint        TEXT    NOT NULL,
  bins               INTEGER NOT NULL,
  sigma              INTEGER NOT NULL,
  protocol           TEXT    NOT NULL,
  requester_endpoint    TEXT NOT NULL,
  requester_fingerprint TEXT NOT NULL,
  status             TEXT    NOT NULL,
  status_reason      TEXT,
  created_at         BIGINT  NOT NULL,
  expires_at         BIGINT  NOT NULL,
  decided_at         BIGINT
);
CREATE INDEX queries_status ON queries (status, expires_at);

CREATE TABLE approvals (
  query_id    TEXT   NOT NULL PRIMARY KEY REFERENCES queries (id),
  decision    TEXT   NOT NULL,
  decided_by  TEXT   NOT NULL,
  reason      TEXT,
  decided_at  BIGINT NOT NULL
);

CREATE TABLE sessions (
  id            TEXT    NOT NULL PRIMARY KEY,
  query_id      TEXT    NOT NULL UNIQUE REFERENCES queries (id),
  party_a       TEXT    NOT NULL,
  party_b       TEXT    NOT NULL,
  bins          INTEGER NOT NULL,
  sigma         INTEGER NOT NULL,
  protocol      TEXT    NOT NULL,
  a_endpoint    TEXT    NOT NULL,
  a_fingerprint TEXT    NOT NULL,
  b_endpoint    TEXT    NOT NULL,
  b_fingerprint TEXT    NOT NULL,
  status        TEXT    NOT NULL,
  created_at    BIGINT  NOT NULL
);
