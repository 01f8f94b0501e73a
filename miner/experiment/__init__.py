"""Variance experiments: run a manifest's training under noise settings, pinned threads and devices,
with deterministic kernels applied from outside the project, then analyze the spread."""
