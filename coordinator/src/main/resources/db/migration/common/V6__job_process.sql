-- issue 16: a session's running job as its coordinator launched it (JSON: the process id, the
-- REST URL its progress comes from, the output location and format, whether the output existed
-- before, the work directory), so that a restarted coordinator can re-attach to a job that
-- outlived it (job.onShutdown: leave, or a coordinator killed).
ALTER TABLE sessions ADD COLUMN job_process TEXT;
ALTER TABLE group_sessions ADD COLUMN job_process TEXT;
