-- prefilter auto (issue 14): the share of the smaller table's keys a query expects in common, in
-- millionths (an integer, so that SQLite and PostgreSQL store it exactly and both coordinators
-- compare it equal); 1000000, "all may be common", for rows from before and for other prefilters.
-- Portable between SQLite and PostgreSQL; one column per statement for SQLite.
ALTER TABLE queries ADD COLUMN expected_overlap_ppm INTEGER NOT NULL DEFAULT 1000000;
ALTER TABLE sessions ADD COLUMN expected_overlap_ppm INTEGER NOT NULL DEFAULT 1000000;
