-- The smoke ladder: how far each run got (S0..S6), the time spent reaching each stage, the
-- repairs applied to its environment, the files the clone left out that were fetched into the
-- copy, and every attempt kept (smoke_runs holds the latest per repository and commit).
-- Numbered after 0009 (what a run needed to pass: stand-in data, the CPU shim).
-- stage: 0..6 for S0..S6, -1 before S0; stage_seconds and repairs are JSON; qualifier says how
-- an outcome was reached ('stand-in data', 'cpu shim').
ALTER TABLE smoke_runs ADD COLUMN stage INTEGER NOT NULL DEFAULT -1;
ALTER TABLE smoke_runs ADD COLUMN stage_seconds TEXT NOT NULL DEFAULT '{}';
ALTER TABLE smoke_runs ADD COLUMN qualifier TEXT;
ALTER TABLE smoke_runs ADD COLUMN repairs TEXT NOT NULL DEFAULT '[]';
ALTER TABLE smoke_runs ADD COLUMN blob_files INTEGER NOT NULL DEFAULT 0;
ALTER TABLE smoke_runs ADD COLUMN blob_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE smoke_runs ADD COLUMN entry TEXT NOT NULL DEFAULT '';
ALTER TABLE smoke_runs ADD COLUMN notes TEXT NOT NULL DEFAULT '[]';
-- outcome alone shows (an install failure had S0, an import failure S1, a step S5, else S2).
UPDATE smoke_runs SET outcome = 'needs_gpu' WHERE outcome = 'gpu_only';
UPDATE smoke_runs SET stage = CASE outcome
    WHEN 'install' THEN 0 WHEN 'import' THEN 1 WHEN 'ok' THEN 5 ELSE 2 END;
CREATE TABLE smoke_attempts (
    attempt INTEGER PRIMARY KEY AUTOINCREMENT,
    repo_id INTEGER NOT NULL REFERENCES repos (id),
    commit_sha TEXT NOT NULL,
    full_name TEXT NOT NULL,
    outcome TEXT NOT NULL,
    rule TEXT NOT NULL,
    evidence_path TEXT NOT NULL,
    evidence_line INTEGER NOT NULL,
    evidence_text TEXT NOT NULL,
    exit_code INTEGER,
    install_seconds REAL NOT NULL,
    train_seconds REAL NOT NULL,
    seconds REAL NOT NULL,
    timeout REAL NOT NULL,
    network_cut INTEGER NOT NULL,
    python TEXT,
    requirements INTEGER NOT NULL,
    command TEXT,
    environment TEXT,
    log_dir TEXT NOT NULL,
    smoked_at TEXT NOT NULL,
    stage INTEGER NOT NULL DEFAULT -1,
    stage_seconds TEXT NOT NULL DEFAULT '{}',
    qualifier TEXT,
    repairs TEXT NOT NULL DEFAULT '[]',
    blob_files INTEGER NOT NULL DEFAULT 0,
    blob_bytes INTEGER NOT NULL DEFAULT 0,
    entry TEXT NOT NULL DEFAULT '',
    notes TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX smoke_attempts_repo ON smoke_attempts (repo_id, commit_sha);
INSERT INTO smoke_attempts (
    repo_id, commit_sha, full_name, outcome, rule, evidence_path, evidence_line, evidence_text,
    exit_code, install_seconds, train_seconds, seconds, timeout, network_cut, python,
    requirements, command, environment, log_dir, smoked_at, stage
)
SELECT repo_id, commit_sha, full_name, outcome, rule, evidence_path, evidence_line,
    evidence_text, exit_code, install_seconds, train_seconds, seconds, timeout, network_cut,
    python, requirements, command, environment, log_dir, smoked_at, stage
FROM smoke_runs ORDER BY smoked_at;
