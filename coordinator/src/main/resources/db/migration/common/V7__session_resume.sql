-- issue 16: how often a failed two-party session was resumed (POST /v1/sessions/{id}/resume). A
-- resumed session is created again; its jobs run with --resume, skipping the bins party A's job
-- committed in the run before.
ALTER TABLE sessions ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0;
