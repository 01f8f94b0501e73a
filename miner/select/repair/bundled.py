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

# (the import-time error, the binding's folder among the traceback's frames ("" when the
# error names the binding), the bound that brings the library, why)
BUNDLED_LIBRARIES = (
    (
        # soundfile before 0.12.1 (and librosa, which imports it) looks for a system libsndfile
        re.compile(r"sndfile library not found|cannot load library '?libsndfile"),
        "",
        "soundfile>=0.12.1",
        "libsndfile, which soundfile's Linux wheels bundle from 0.12.1 on",
    ),
    (
        # MXNet's libmxnet.so links Fortran's runtime of GCC 4-6, gone from today's systems
        re.compile(r"libgfortran\.so\.3: cannot open shared object file"),
        "/mxnet/",
        "mxnet>=1.0.0.post4",
        "libgfortran.so.3, which MXNet's Linux wheels bundle from 1.0.0.post4 on",
    ),
)


def bundled_library(line: str, frames: list[str]) -> tuple[str, str] | None:
    """(bound, why) when `line` is a binding's failure to load a library its later wheels
    bundle, raised in the binding's files where `frames` (the traceback above it) must show
    them; None otherwise."""
    for pattern, folder, bound, feature in BUNDLED_LIBRARIES:
        if pattern.search(line) and (not folder or any(folder in f for f in frames)):
            return bound, feature
    return None
