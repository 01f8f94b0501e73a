"""System libraries that a binding's later wheels bundle.

A Python binding of a C library loads it from the system at import time; a machine without the
library stops there (`OSError: sndfile library not found`), before any of the project's code
runs. Where the binding's later releases carry the library inside their Linux wheels, the
binding is bounded up to the first of them, past the commit's date if need be: what the project
used is the same library, now shipped with its binding. Only bindings whose API stayed the same
across that step are listed.
"""

from __future__ import annotations

import re

# (the import-time error, the bound that brings the library, why)
BUNDLED_LIBRARIES = (
    (
        # soundfile before 0.12.1 (and librosa, which imports it) looks for a system libsndfile
        re.compile(r"sndfile library not found|cannot load library '?libsndfile"),
        "soundfile>=0.12.1",
        "libsndfile, which soundfile's Linux wheels bundle from 0.12.1 on",
    ),
)


def bundled_library(line: str) -> tuple[str, str] | None:
    """(bound, why) when `line` is a binding's failure to load a library its later wheels
    bundle; None otherwise."""
    for pattern, bound, feature in BUNDLED_LIBRARIES:
        if pattern.search(line):
            return bound, feature
    return None
