-- Snapshots: a repository at several study dates. One row per (repository, date); a
-- repository that did not exist yet at a date has status 'absent' and no commit. Dates that
-- resolve to the same commit share one checkout, and so one audit (audits are keyed by commit).
CREATE TABLE snapshots (
    repo_id INTEGER NOT NULL REFERENCES repos (id),
    full_name TEXT NOT NULL,
    as_of TEXT NOT NULL,               -- the study date, ISO 8601 in UTC
    status TEXT NOT NULL,              -- ok | absent | failed
    error_class TEXT,
    error TEXT,
    commit_sha TEXT,                   -- the last first-parent commit strictly before as_of
    commit_date TEXT,
    path TEXT,                         -- the checkout, relative to the store's folder when inside it
    bytes_received INTEGER,
    seconds REAL,
    cloned_at TEXT NOT NULL,
    PRIMARY KEY (repo_id, as_of)
);
CREATE INDEX snapshots_commit ON snapshots (repo_id, commit_sha);
