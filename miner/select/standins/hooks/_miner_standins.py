"""What every stand-in shares: the decision to stand in, seeded generators, and the report.

A stand-in is served only when the real loader failed for want of data: an OSError (a missing
file, a refused or unreachable connection) or an error whose message says the data is missing or
could not be downloaded. Any other failure (a wrong argument, a bug) is the project's and is
raised as it was.
"""

import atexit
import functools
import json
import os
import re
import sys
import zlib

_REPORT_DIR = os.environ.get("MINER_STANDIN_REPORT", "")
_FILES_DIR = os.environ.get("MINER_STANDIN_FILES", "")
FETCH = os.environ.get("MINER_STANDIN_FETCH") == "1"
FETCH_GRACE = float(os.environ.get("MINER_STANDIN_FETCH_GRACE", "20") or 20)
_TIMER = []  # type: list
SEED = int(os.environ.get("MINER_STANDIN_SEED", "0") or 0)
REPORT = {
    "pid": os.getpid(), "argv": [], "served": [], "declined": [], "errors": [],
    "shim": {}, "fetched": [], "builtins": {},
}  # type: dict  # fmt: skip
_MISSING = re.compile(
    r"(?i)not found|no such file|does not exist|doesn't exist|could ?n[o']t find|download"
    r"|url|fetch|connect|network|resolv|unreachable|offline|integrity|corrupt|HTTP|timed out"
    r"|hub|repository"
)
_FORGIVEN = (TypeError, AttributeError, NameError, SyntaxError, KeyboardInterrupt, MemoryError)
TEXT = (str, type(b"".decode("ascii")))  # and Python 2's unicode


def wraps(real):
    """functools.wraps on Python 2 as well, whose update_wrapper copies each attribute without a
    default and fails on a builtin method that has no `__module__` (`torch.Tensor.cuda` of torch
    0.x): the attributes `real` lacks are left out."""
    assigned = tuple(name for name in functools.WRAPPER_ASSIGNMENTS if hasattr(real, name))
    return functools.wraps(real, assigned=assigned)


def makedirs(path):
    """os.makedirs that accepts a folder already there (Python 2 has no exist_ok)."""
    try:
        os.makedirs(path)
    except OSError:
        if not os.path.isdir(path):
            raise


def start():
    """Write the report at exit too (shim counts change after the first write)."""
    atexit.register(write)


def profile_builtin():
    """`@profile` on a function the project profiles: kernprof (line_profiler) and
    memory_profiler put `profile` into builtins when they run a script, so run plainly it stops
    at a NameError. Where nothing defines the name, an identity decorator stands in; each
    function it decorates is counted in the report."""
    try:
        import builtins
    except ImportError:  # Python 2
        import __builtin__ as builtins  # type: ignore[no-redef]

    if hasattr(builtins, "profile"):
        return

    def profile(function=None, *args, **kwargs):
        first = "profile" not in REPORT["builtins"]
        REPORT["builtins"]["profile"] = REPORT["builtins"].get("profile", 0) + 1
        if first:
            write()
        if function is None:  # @profile(precision=4), memory_profiler's form
            return lambda inner: inner
        return function

    builtins.profile = profile  # type: ignore[attr-defined]  # as kernprof sets it


def missing_data(exc):
    """True when `exc` says the data is not there or could not be fetched."""
    if isinstance(exc, _FORGIVEN):
        return False
    if isinstance(exc, EnvironmentError):  # Python 2's IOError and socket.error are no OSError
        return True
    return bool(_MISSING.search("%s %s" % (type(exc).__name__, exc)))


def reason(exc):
    """The real loader's failure, one line."""
    text = " ".join(str(exc).split())
    return ("%s: %s" % (type(exc).__name__, text))[:200]


def rng(*key):
    """A generator seeded by MINER_STANDIN_SEED and `key`, so a stand-in is the same every run."""
    import numpy

    text = "/".join(str(k) for k in key)
    return numpy.random.RandomState((zlib.crc32(text.encode("utf-8")) + SEED) % (2**32))


def files_dir(*parts):
    """A folder for stand-ins that must be files (image folders, audio clips)."""
    base = _FILES_DIR or os.path.join(_REPORT_DIR or ".", "files")
    path = os.path.join(base, *parts)
    makedirs(path)
    return path


def describe(value):
    """Shape and dtype of an array, a tensor, or a list of sequences."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        return {"shape": [int(s) for s in shape], "dtype": str(getattr(value, "dtype", ""))}
    if isinstance(value, (list, tuple)):
        return {"shape": [len(value)], "dtype": type(value[0]).__name__ if value else ""}
    return {"shape": [], "dtype": type(value).__name__}


def served(loader, split, arrays, classes, why, note=""):
    """Record a stand-in served: the loader, its split, each array's shape and dtype, classes."""
    entry = {
        "loader": loader,
        "split": split,
        "arrays": {name: describe(value) for name, value in arrays.items()},
        "classes": classes,
        "reason": why,
    }
    if note:
        entry["note"] = note
    REPORT["served"].append(entry)
    write()
    sys.stderr.write("miner: stand-in data for %s (%s): %s\n" % (loader, split, why))


def declined(loader, why):
    """Record a loader that failed for want of data and has no stand-in here."""
    REPORT["declined"].append({"loader": loader, "reason": why})
    write()


def note_error(where, exc):
    """Record a patch that failed (the loader then runs unpatched)."""
    REPORT["errors"].append({"module": where, "error": reason(exc)})
    write()


def fetch_begin():
    """In a data step: a loader starts; the process is not ended while it runs."""
    for timer in _TIMER:
        timer.cancel()
    del _TIMER[:]


def fetched(loader):
    """In a data step: record a loader that got its data (None: it failed), and end the process
    FETCH_GRACE seconds after the last loader returns (what follows is training, which the data
    step does not need)."""
    import threading

    if loader is not None:
        REPORT["fetched"].append(loader)
        write()
    fetch_begin()
    timer = threading.Timer(FETCH_GRACE, _done)
    timer.daemon = True
    _TIMER.append(timer)
    timer.start()


def _done():
    write()
    sys.stderr.write("miner: data step done\n")
    sys.stderr.flush()
    os._exit(0)


def shim_used(kind):
    """Count one use of the CPU shim; the first of each kind is written at once."""
    first = kind not in REPORT["shim"]
    REPORT["shim"][kind] = REPORT["shim"].get(kind, 0) + 1
    if first:
        write()


def write():
    """Write this process's report (atomically; a child process writes its own)."""
    if not _REPORT_DIR:
        return
    REPORT["pid"] = os.getpid()
    REPORT["argv"] = list(getattr(sys, "argv", []))  # not set yet while site runs (3.6, 3.7)
    try:
        makedirs(_REPORT_DIR)
        path = os.path.join(_REPORT_DIR, "%d.json" % os.getpid())
        with open(path + ".tmp", "w") as fh:  # json writes ASCII
            json.dump(REPORT, fh, indent=1, default=str)
        getattr(os, "replace", os.rename)(path + ".tmp", path)  # Python 2: rename replaces
    except OSError:
        pass


def call_or_stand_in(loader, real, args, kwargs, make):
    """Call the real loader; when it fails for want of data, return `make(why)` instead (None
    from `make` declines, and the real error is raised)."""
    if FETCH:
        fetch_begin()
    try:
        value = real(*args, **kwargs)
    except Exception as exc:
        if FETCH:
            fetched(None)
        if FETCH or not missing_data(exc):
            raise
        why = reason(exc)
        failed = False
        try:
            value = make(why)
        except Exception as error:  # the stand-in's own fault: record it, raise the real error
            note_error(loader, error)
            failed = True
        if failed:
            raise exc  # outside the inner handler: no chain to the stand-in's error
        if value is None:
            declined(loader, why)
            raise
        return value
    if FETCH:
        fetched(loader)
    return value


def mark(function):
    """Tag a patched function so that a module loaded twice is not patched twice."""
    function.__dict__["_miner_standin"] = True
    return function


def words(state, count, low, high, vocabulary=2000):
    """`count` strings of `low` to `high` made-up words each."""
    lengths = state.randint(low, high + 1, size=count)
    stems = ["w%d" % i for i in range(vocabulary)]
    picks = state.randint(0, vocabulary, size=int(lengths.sum()))
    out, at = [], 0
    for n in lengths:
        out.append(" ".join(stems[j] for j in picks[at : at + n]))
        at += n
    return out
