-- n-party joins (issue 15): a query of three or more organisations, every party's decision, and
-- the session the first party (P1, the output party) creates once all approved. Portable between
-- SQLite and PostgreSQL: TEXT, INTEGER, BIGINT; times are epoch milliseconds; lists are JSON text.

CREATE TABLE group_queries (
  id                   TEXT    NOT NULL PRIMARY KEY,
  direction            TEXT    NOT NULL,
  requester            TEXT    NOT NULL,
  local_index          INTEGER NOT NULL,
  sql_text             TEXT    NOT NULL,
  fingerprint          TEXT    NOT NULL,
  bins                 INTEGER NOT NULL,
  sigma                INTEGER NOT NULL,
  provider             TEXT    NOT NULL,
  provider_cert_sha256 TEXT    NOT NULL,
  parties_json         TEXT    NOT NULL,
  requester_endpoint   TEXT    NOT NULL,
  status               TEXT    NOT NULL,
  status_reason        TEXT,
  created_at           BIGINT  NOT NULL,
  expires_at           BIGINT  NOT NULL,
  decided_at           BIGINT,
  output_location      TEXT,
  output_format        TEXT,
  disclosure_json      TEXT
);
CREATE INDEX group_queries_status ON group_queries (status, expires_at);

CREATE TABLE group_decisions (
  query_id    TEXT   NOT NULL REFERENCES group_queries (id),
  party       TEXT   NOT NULL,
  decision    TEXT   NOT NULL,
  reason      TEXT,
  fingerprint TEXT,
  decided_at  BIGINT NOT NULL,
  PRIMARY KEY (query_id, party)
);

-- the job state columns are those of sessions (V3), so that one launcher follows both
CREATE TABLE group_sessions (
  id              TEXT    NOT NULL PRIMARY KEY,
  query_id        TEXT    NOT NULL UNIQUE REFERENCES group_queries (id),
  endpoint        TEXT    NOT NULL,
  parties_json    TEXT    NOT NULL,
  status          TEXT    NOT NULL,
  created_at      BIGINT  NOT NULL,
  phase           TEXT,
  bins_done       BIGINT,
  bins_total      BIGINT,
  error           TEXT,
  result_location TEXT,
  result_format   TEXT,
  rows_out        BIGINT,
  summary_json    TEXT,
  started_at      BIGINT,
  ended_at        BIGINT
);
