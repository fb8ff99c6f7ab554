-- Table formats are a Java enum (io.psiflink.api.OutputFormat) like the statuses of V4_2: the
-- tables hold their names (AVRO, CSV, PARQUET), no longer the lower-case words the API shows.
-- Portable between SQLite and PostgreSQL; NULLs stay NULL.
UPDATE datasets SET format = UPPER(format);
UPDATE queries SET output_format = UPPER(output_format);
UPDATE sessions SET result_format = UPPER(result_format);
