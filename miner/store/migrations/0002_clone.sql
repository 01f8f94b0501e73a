-- One row per repository: the checkout later stages read, and how it was obtained.
CREATE TABLE clones (
    repo_id INTEGER PRIMARY KEY REFERENCES repos (id),
    full_name TEXT NOT NULL,
    path TEXT,
    status TEXT NOT NULL,              -- cloned | failed
    error_class TEXT,                  -- gone | blocked | auth | timeout | too_large | other
    error TEXT,
    commit_sha TEXT,
    commit_date TEXT,
    as_of TEXT,
    max_blob INTEGER,
    bytes_received INTEGER,
    bytes_on_disk INTEGER,
    seconds REAL,
    cloned_at TEXT NOT NULL
);
