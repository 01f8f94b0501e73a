-- What a smoke run needed to pass: stand-in data for a loader that found none, the CPU shim for
-- hard-coded CUDA ("stand-in data; cpu shim", '' for none), with one evidence line per stand-in
-- served (loader, split, shapes, classes, why the real one failed) and per kind of shim rewrite.
ALTER TABLE smoke_runs ADD COLUMN assists TEXT NOT NULL DEFAULT '';
ALTER TABLE smoke_runs ADD COLUMN assist_evidence TEXT NOT NULL DEFAULT '';
