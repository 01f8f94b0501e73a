"""Data stand-ins and the CPU shim for smoke runs (and, when asked, for experiments).

The code that runs inside the project's interpreter lives in `hooks/` (a sitecustomize and its
adapters, standard library at start-up); this package puts it in a child's environment
(`assist_env`), reads back what it did (`read_assists`), and copies a user's data into a run's
copy of the checkout (`mounts`).
"""
