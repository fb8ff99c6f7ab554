-- Job launch: each side's job state in its own copy of the session, and where a query's output goes.
-- One column per statement: SQLite's ALTER TABLE adds one column at a time.
ALTER TABLE sessions ADD COLUMN phase TEXT;
ALTER TABLE sessions ADD COLUMN bins_done BIGINT;
ALTER TABLE sessions ADD COLUMN bins_total BIGINT;
ALTER TABLE sessions ADD COLUMN error TEXT;
ALTER TABLE sessions ADD COLUMN result_location TEXT;
ALTER TABLE sessions ADD COLUMN result_format TEXT;
ALTER TABLE sessions ADD COLUMN rows_out BIGINT;
ALTER TABLE sessions ADD COLUMN summary_json TEXT;
ALTER TABLE sessions ADD COLUMN started_at BIGINT;
ALTER TABLE sessions ADD COLUMN ended_at BIGINT;
ALTER TABLE queries ADD COLUMN output_location TEXT;
ALTER TABLE queries ADD COLUMN output_format TEXT;
