"""Variance experiments: run a manifest's training under pinned threads and seeds, then analyze."""
