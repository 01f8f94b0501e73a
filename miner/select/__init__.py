"""Candidate selection for variance experiments: static evidence, ranking and the manifest."""
