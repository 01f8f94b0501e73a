-- Every attempt keeps what it needed to pass, as the latest run does (0009): the stand-in data
-- and CPU-shim labels ('stand-in data; cpu shim') and one evidence line per stand-in or rewrite.
ALTER TABLE smoke_attempts ADD COLUMN assists TEXT NOT NULL DEFAULT '';
ALTER TABLE smoke_attempts ADD COLUMN assist_evidence TEXT NOT NULL DEFAULT '';
