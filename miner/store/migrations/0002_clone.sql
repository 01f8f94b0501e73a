-- One row per repository: the checkout later stages read, and how it was obtained.
CREATE TABLE clones (
    repo_id INTEGER PRIMARY KEY REFERENCES repos (id),
    full_name TEXT NOT NULL,
    path TEXT,                         -- the checkout, relative to the store's folder when inside it
    status TEXT NOT NULL,              -- cloned | failed
    error_class TEXT,                  -- gone | blocked | auth | timeout | too_large | too_new | other
    error TEXT,
    commit_sha TEXT,                   -- the commit checked out
    commit_date TEXT,                  -- its committer date, ISO 8601 in UTC
    ref TEXT,                          -- the branch it was taken from (HEAD when unknown)
    as_of TEXT,                        -- the study date it is pinned to; NULL = branch tip
    max_blob INTEGER,                  -- blobs larger than this many bytes were not fetched
    omitted_files INTEGER,             -- files left out of the checkout for that reason
    bytes_received INTEGER,
    bytes_on_disk INTEGER,
    seconds REAL,                      -- how long the clone took
    cloned_at TEXT NOT NULL            -- when it was made (or failed), ISO 8601
);
CREATE INDEX clones_status ON clones (status)
