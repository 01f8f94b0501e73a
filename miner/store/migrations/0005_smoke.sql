-- One row per repository and commit: the latest smoke run, its outcome and the log line behind it.
CREATE TABLE smoke_runs (
    repo_id INTEGER NOT NULL REFERENCES repos (id),
    commit_sha TEXT NOT NULL,
    full_name TEXT NOT NULL,
    outcome TEXT NOT NULL,             -- ok | install | import | data | gpu_only | runtime | timeout
    rule TEXT NOT NULL,                -- the rule that classified it, e.g. smoke.install.no_wheel
    evidence_path TEXT NOT NULL,       -- the log (install.log, train.log) or file behind it
    evidence_line INTEGER NOT NULL,
    evidence_text TEXT NOT NULL,
    exit_code INTEGER,
    install_seconds REAL NOT NULL,
    train_seconds REAL NOT NULL,
    seconds REAL NOT NULL,             -- the whole smoke run: copy, environment, install, train
    timeout REAL NOT NULL,             -- the bound on the training step, in seconds
    network_cut INTEGER NOT NULL,      -- 1 when training ran without network
    python TEXT,
    requirements INTEGER NOT NULL,     -- requirement lines installed
    command TEXT,
    environment TEXT,                  -- the kept environment of a passing project
    log_dir TEXT NOT NULL,
    smoked_at TEXT NOT NULL,
    PRIMARY KEY (repo_id, commit_sha)
);
CREATE INDEX smoke_runs_outcome ON smoke_runs (outcome)
