"""Placeholder replaced by its stage."""
