-- Repositories found by search, the search log (per keyword) and its slices, and provenance.
CREATE TABLE repos (
    id INTEGER PRIMARY KEY,            -- GitHub's repository id: stable across renames
    full_name TEXT NOT NULL,
    html_url TEXT,
    clone_url TEXT,
    description TEXT,
    stars INTEGER,
    forks INTEGER,
    watchers INTEGER,
    open_issues INTEGER,
    language TEXT,
    topics TEXT,                       -- JSON list
    license TEXT,
    default_branch TEXT,
    size_kb INTEGER,
    fork INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    disabled INTEGER NOT NULL DEFAULT 0,
    created_at TEXT,
    updated_at TEXT,
    pushed_at TEXT,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL
);
CREATE INDEX repos_full_name ON repos (full_name);

CREATE TABLE searches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    query_key TEXT NOT NULL UNIQUE,    -- hash of keyword + every filter: the resume key
    keyword TEXT NOT NULL,
    params TEXT NOT NULL,              -- JSON of the filters used
    min_stars INTEGER,
    max_stars INTEGER,
    created_after TEXT,
    created_before TEXT,
    pushed_after TEXT,
    language TEXT,
    in_fields TEXT,
    include_forks INTEGER NOT NULL DEFAULT 0,
    total_found INTEGER,
    fetched INTEGER NOT NULL DEFAULT 0,
    shortfall INTEGER NOT NULL DEFAULT 0,
    requests INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'running',
    started_at TEXT NOT NULL,
    finished_at TEXT
);

CREATE TABLE search_slices (
    search_id INTEGER NOT NULL REFERENCES searches (id),
    qualifier TEXT NOT NULL,           -- the slice's extra qualifiers, e.g. "stars:200..350 created:..."
    stars_lo INTEGER,
    stars_hi INTEGER,
    created_lo TEXT,
    created_hi TEXT,
    total_count INTEGER,
    fetched INTEGER NOT NULL DEFAULT 0,
    shortfall INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'pending',
    completed_at TEXT,
    PRIMARY KEY (search_id, qualifier)
);

CREATE TABLE repo_hits (
    repo_id INTEGER NOT NULL REFERENCES repos (id),
    search_id INTEGER NOT NULL REFERENCES searches (id),
    keyword TEXT NOT NULL,
    qualifier TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    PRIMARY KEY (repo_id, search_id, qualifier)
);
