-- Work in progress, so that runs started at the same time on one store share the work: which
-- run holds which repository for a stage, and which run holds a stage that cannot be shared.
-- A holder is a process (pid, host and start time: a reused pid starts later); the row of a
-- process that is gone counts as free.
CREATE TABLE claims (
    stage TEXT NOT NULL,               -- analyze | clone
    repo_id INTEGER NOT NULL,
    run TEXT NOT NULL,                 -- the claiming run (random; one process may run several)
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started REAL NOT NULL,             -- the process's start time, seconds since the epoch
    claimed_at REAL NOT NULL,
    finished_at REAL,                  -- NULL while the work is in progress
    PRIMARY KEY (stage, repo_id)
);

CREATE TABLE locks (
    name TEXT PRIMARY KEY,             -- search
    run TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started REAL NOT NULL,
    command TEXT NOT NULL,             -- what the holder runs, for the message to the others
    taken_at REAL NOT NULL
)
