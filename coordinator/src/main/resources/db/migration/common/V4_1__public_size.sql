-- What a dataset discloses of its size to the peer (flink-jobs PublicSize: rounded, exact or
-- declared:N; existing datasets take the default), and per query what each party learns (JSON,
-- computed when the query is validated). Versioned 4.1 to leave 4 to a sibling change.
ALTER TABLE datasets ADD COLUMN public_size TEXT NOT NULL DEFAULT 'rounded';
ALTER TABLE queries ADD COLUMN disclosure_json TEXT;
