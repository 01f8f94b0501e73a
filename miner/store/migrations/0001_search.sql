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
    license TEXT,                      -- SPDX id (NOASSERTION for licences GitHub cannot name)
    default_branch TEXT,
    size_kb INTEGER,
    fork INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    disabled INTEGER NOT NULL DEFAULT 0,
    created_at TEXT,
    updated_at TEXT,
    pushed_at TEXT,
    first_seen TEXT NOT NULL,          -- when any search first returned it
    last_seen TEXT NOT NULL            -- when a search last returned it (the values are from then)
);
CREATE INDEX repos_full_name ON repos (full_name);
CREATE INDEX repos_stars ON repos (stars);

CREATE TABLE searches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    query_key TEXT NOT NULL,           -- hash of keyword + every filter + API host: the resume key
    keyword TEXT NOT NULL,
    query TEXT NOT NULL,               -- GitHub's q for the whole search, before slicing
    params TEXT NOT NULL,              -- JSON of the filters used (never the token)
    api_url TEXT NOT NULL,
    min_stars INTEGER,
    max_stars INTEGER,
    created_after TEXT,
    created_before TEXT,
    pushed_after TEXT,
    language TEXT,
    in_fields TEXT,
    include_forks INTEGER NOT NULL DEFAULT 0,
    total_found INTEGER,               -- total_count of the whole search when it started
    total_end INTEGER,                 -- total_count when its last slice was mined
    fetched INTEGER NOT NULL DEFAULT 0,      -- distinct repositories stored for this search
    shortfall INTEGER NOT NULL DEFAULT 0,    -- reported by GitHub but not stored (see docs)
    requests INTEGER NOT NULL DEFAULT 0,     -- search requests, retries included
    probes INTEGER NOT NULL DEFAULT 0,       -- requests that only read a slice's total_count
    slices INTEGER NOT NULL DEFAULT 0,       -- slices mined (leaves of the slicing)
    runs INTEGER NOT NULL DEFAULT 1,         -- 1 + the number of times it was resumed
    status TEXT NOT NULL DEFAULT 'running',  -- running | done
    started_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX searches_query_key ON searches (query_key);

CREATE TABLE search_slices (
    search_id INTEGER NOT NULL REFERENCES searches (id),
    qualifier TEXT NOT NULL,           -- the slice's own qualifiers, e.g. "stars:200..350"
    seq INTEGER NOT NULL,              -- creation order; the newest pending slice runs first
    kind TEXT NOT NULL,                -- root | stars | mined | date
    stars_lo INTEGER NOT NULL,
    stars_hi INTEGER,
    created_lo TEXT,
    created_hi TEXT,
    total_count INTEGER,
    fetched INTEGER NOT NULL DEFAULT 0,
    shortfall INTEGER NOT NULL DEFAULT 0,
    requests INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'pending',  -- pending | split | done
    completed_at TEXT,
    PRIMARY KEY (search_id, qualifier)
);

CREATE TABLE repo_hits (
    repo_id INTEGER NOT NULL REFERENCES repos (id),
    search_id INTEGER NOT NULL REFERENCES searches (id),
    keyword TEXT NOT NULL,
    qualifier TEXT NOT NULL,           -- the slice whose query returned it
    fetched_at TEXT NOT NULL,
    PRIMARY KEY (repo_id, search_id, qualifier)
);
CREATE INDEX repo_hits_search ON repo_hits (search_id, repo_id)
