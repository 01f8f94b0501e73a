"""Classifiers of requirements and project kind: rule-based, over docs and dependency files."""
