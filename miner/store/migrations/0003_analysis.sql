-- Audits keyed by repository and commit: labels (codebook fields) and their evidence.
CREATE TABLE audits (
    repo_id INTEGER NOT NULL,
    commit_sha TEXT NOT NULL,
    full_name TEXT,
    status TEXT NOT NULL,              -- ok | failed
    error TEXT,
    warnings TEXT,                     -- JSON list
    details TEXT,                      -- JSON object
    miner_version TEXT,
    codebook_version TEXT,
    analysed_at TEXT NOT NULL,
    PRIMARY KEY (repo_id, commit_sha)
);

CREATE TABLE labels (
    repo_id INTEGER NOT NULL,
    commit_sha TEXT NOT NULL,
    field TEXT NOT NULL,
    value TEXT NOT NULL,               -- sheet format: yes/no, ;-separated set, or the value
    PRIMARY KEY (repo_id, commit_sha, field),
    FOREIGN KEY (repo_id, commit_sha) REFERENCES audits (repo_id, commit_sha) ON DELETE CASCADE
);

CREATE TABLE evidence (
    repo_id INTEGER NOT NULL,
    commit_sha TEXT NOT NULL,
    field TEXT NOT NULL,
    seq INTEGER NOT NULL,
    path TEXT NOT NULL,
    line INTEGER NOT NULL,
    text TEXT NOT NULL,
    rule TEXT NOT NULL,
    PRIMARY KEY (repo_id, commit_sha, field, seq),
    FOREIGN KEY (repo_id, commit_sha) REFERENCES audits (repo_id, commit_sha) ON DELETE CASCADE
);
