-- The server-aided sample filter (issue 14): per query and session whether a helper pre-filters
-- both sets (Prefilter name: NONE or HELPER; rows from before take NONE, the only way there was),
-- the helper's name and certificate pin, and the filter's bits and hash count (0: the jobs choose).
-- Portable between SQLite and PostgreSQL; one column per statement for SQLite.
ALTER TABLE queries ADD COLUMN prefilter TEXT NOT NULL DEFAULT 'NONE';
ALTER TABLE queries ADD COLUMN helper TEXT;
ALTER TABLE queries ADD COLUMN helper_cert_sha256 TEXT;
ALTER TABLE queries ADD COLUMN filter_bits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queries ADD COLUMN filter_hashes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN prefilter TEXT NOT NULL DEFAULT 'NONE';
ALTER TABLE sessions ADD COLUMN helper TEXT;
ALTER TABLE sessions ADD COLUMN helper_cert_sha256 TEXT;
ALTER TABLE sessions ADD COLUMN filter_bits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN filter_hashes INTEGER NOT NULL DEFAULT 0;
