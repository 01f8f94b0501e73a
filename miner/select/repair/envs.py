"""The environment a smoke run builds, one uv (or, for Python 2, virtualenv and pip) call at a
time: make it, install into it, read its exact versions, put it back as it was, ask what it
imports. Every call is bounded and logged like the rest of the install.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from miner.select.repair.names import canonical
from miner.select.repair.requirements import merged, requirement
from miner.select.sandbox import Finished, Limits, run_bounded, uv_binary

VENV_TIMEOUT = 300.0
PROBE_TIMEOUT = 300.0
BUILD_BACKENDS = ("setuptools", "wheel")
# The last virtualenv that makes Python 2 environments; it brings pip 20.3.4, the last for 2.7.
VIRTUALENV_PY2 = "virtualenv>=20,<20.22"  # the last to make 2.7 environments, with the flags used
PROBE = r"""
import json, sys
names, mode, out = json.loads(sys.argv[1]), sys.argv[2], {}
for name in names:
    try:
        if mode == "import":
            __import__(name)
        else:
            try:
                import importlib.util as util
                found = util.find_spec(name) is not None
            except ImportError:
                import imp
                imp.find_module(name)
                found = True
            if not found:
                raise ImportError("No module named " + name)
    except BaseException as exc:
        out[name] = "%s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:200])
print("MINER-PROBE " + json.dumps(out))
"""
# Put the working folder, the checkout's root and any nested project's root (MINER_CHECKOUT_ROOT,
# a list: a README command that first changes into a folder of examples, `cd examples/voc &&
# python train.py`, still imports the root's package), and their src/, on the path of every run.
PATH_HOOK = (
    "import os, sys; r = (os.environ.get('MINER_CHECKOUT_ROOT') or os.getcwd()).split(os.pathsep); "
    "[sys.path.insert(i, p) for i, p in enumerate("
    "[os.getcwd()] + [q for f in r if f for q in (f, os.path.join(f, 'src'))]) "
    "if p not in sys.path]\n"
)


def python2_interpreters() -> list[str]:
    """2.7 interpreters pyenv installed (`~/.pyenv/versions/2.7.*/bin/python`), newest first."""
    pattern = os.path.expanduser("~/.pyenv/versions/2.7.*/bin/python")
    return sorted(glob.glob(pattern), reverse=True)


@dataclass(frozen=True)
class Builder:
    """Where the environment lives and how its installs are made."""

    venv: Path
    work: Path
    log: Path
    env: dict[str, str]
    timeout: float
    as_of: str | None = None  # the index as of this date (uv's --exclude-newer)
    options: tuple[str, ...] = ()  # the requirements' index options (--find-links, --no-index)
    python2: bool = False
    past_date: tuple[str, ...] = ()  # projects resolved past the as-of date (a repair's choice)

    @property
    def python(self) -> Path:
        """The environment's interpreter."""
        return self.venv / "bin" / "python"

    def _run(self, argv: list[str], timeout: float) -> Finished:
        env = self.env
        if self.python2 and argv[1:3] == ["-m", "pip"]:
            # pip's old resolver lets a constraint seen first (a machine-wide pip.conf's
            # `constraint = ...`, `torch<=2.14.1`) stand over a requirement's own bound
            # (`torch<=1.2.0`), so the date's bounds would not hold: pip reads no config file.
            env = {**env, "PIP_CONFIG_FILE": os.devnull}
        return run_bounded(argv, self.work, env, self.log, timeout, Limits(memory_bytes=None))

    def make(self, interpreter: str) -> Finished:
        """A fresh environment of `interpreter` in place of whatever was there."""
        shutil.rmtree(self.venv, ignore_errors=True)
        uv = uv_binary()
        if self.python2:
            argv = [uv, "tool", "run", "--from", VIRTUALENV_PY2, "virtualenv", "--quiet",
                    "--no-periodic-update", "-p", interpreter, str(self.venv)]  # fmt: skip
        else:
            argv = [uv, "venv", "--quiet", "--python", interpreter, str(self.venv)]
        return self._run(argv, VENV_TIMEOUT)

    def as_of_args(self) -> list[str]:
        """uv's flags for the index as of the commit date, build back-ends excepted (today's uv
        asks for setuptools>=40.8 to build an old sdist, which an old index does not have)."""
        if not self.as_of or self.python2:
            return []
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        return ["--exclude-newer", self.as_of,
                *(f"--exclude-newer-package={name}={now}"
                  for name in (*BUILD_BACKENDS, *self.past_date))]  # fmt: skip

    def _requirements(self, lines: list[str], name: str) -> Path:
        path = self.work / name
        path.write_text("".join(f"{ln}\n" for ln in [*self.options, *lines]), encoding="utf-8")
        return path

    def install(
        self,
        lines: list[str],
        build_constraints: tuple[str, ...] = (),
        extra_build: tuple[tuple[str, str], ...] = (),
    ) -> Finished:
        """Install `lines` (with the era's build constraints and extra build dependencies)."""
        if not lines:
            return Finished(0, False, 0.0)
        plan = self._requirements(merged(lines) if self.python2 else lines, "requirements.txt")
        if self.python2:
            # pip picks today's sdist over last decade's wheel (grpcio compiling for minutes);
            # an older release with a wheel is what a 2.7 project installed in its day.
            argv = [str(self.python), "-m", "pip", "install", "--disable-pip-version-check",
                    "--no-input", "--prefer-binary", "-r", str(plan)]  # fmt: skip
            return self._run(argv, self.timeout)
        start = self.log.stat().st_size if self.log.exists() else 0
        done = self._uv_install(lines, plan, build_constraints, extra_build)
        unparsed = _unparsed_pins(lines, _written_since(self.log, start)) if done.exit_code else []
        if not unparsed:
            return done
        # uv reads every release's metadata strictly; a pinned old release whose metadata it
        # cannot parse (pandas 0.20.3: `pytz (>=2011k)`) installs first by itself, without its
        # list of dependencies, and its installed metadata is made readable; the rest then
        # resolves around it (seaborn's `pandas` is that release) and what it imports is
        # checked like any import.
        alone = self._requirements(unparsed, "without-dependencies.txt")
        argv = [uv_binary(), "pip", "install", "--python", str(self.python), "--no-deps",
                "-r", str(alone), *self.as_of_args()]  # fmt: skip
        with self.log.open("a", encoding="utf-8") as fh:
            fh.write(f"miner: {', '.join(unparsed)} without its dependency list: the installer "
                     "cannot parse its metadata\n")  # fmt: skip
        done = self._run(argv, self.timeout)
        if done.exit_code != 0:
            return done
        for line in unparsed:
            self._readable_metadata(line)
        rest = [ln for ln in lines if ln not in unparsed]
        if not rest:
            return done
        with self.log.open("a", encoding="utf-8") as fh:
            fh.write(f"{SET_ASIDE} {', '.join(unparsed)} (its metadata does not parse)\n")
        return self._uv_install(rest, self._requirements(rest, "requirements.txt"),
                                build_constraints, extra_build)  # fmt: skip

    def _readable_metadata(self, line: str) -> None:
        """The installed `line`'s dependency entries that do not parse rewritten to the bare
        name (`pytz (>=2011k)` to `pytz`), so that the installer can read the environment again
        (it reads every installed package's metadata to freeze or install), and logged."""
        parsed = requirement(line)
        if parsed is None:
            return
        for metadata in self.venv.glob("lib/python*/site-packages/*.dist-info/METADATA"):
            folder = metadata.parent.name.split("-", 1)[0]  # `name-version.dist-info`
            if canonical(folder) != canonical(parsed.name):
                continue
            text = metadata.read_text(encoding="utf-8", errors="replace").splitlines(True)
            fixed = [_readable_requirement(row) for row in text]
            if fixed != text:
                metadata.unlink()  # a hard link into the package cache: that copy stays
                metadata.write_text("".join(fixed), encoding="utf-8")
                with self.log.open("a", encoding="utf-8") as fh:
                    changed = [(a, b) for a, b in zip(text, fixed, strict=True) if a != b]
                    fh.writelines(f"miner: {metadata.parent.name}: {a.strip()} read as "
                                  f"{b.strip()}\n" for a, b in changed)  # fmt: skip

    def _uv_install(
        self, lines: list[str], plan: Path, build_constraints: tuple[str, ...],
        extra_build: tuple[tuple[str, str], ...],
    ) -> Finished:  # fmt: skip
        argv = [uv_binary(), "pip", "install", "--python", str(self.python), "-r", str(plan)]
        argv += self.as_of_args()
        if build_constraints:
            path = self.work / "build-constraints.txt"
            path.write_text("".join(f"{c}\n" for c in build_constraints), encoding="utf-8")
            argv += ["--build-constraints", str(path)]
        if extra_build:
            config = self.work / "uv.toml"
            table: dict[str, list[str]] = {}
            for package, extra in extra_build:
                table.setdefault(package, []).append(extra)
            body = "".join(f"{json.dumps(k)} = {json.dumps(v)}\n" for k, v in table.items())
            config.write_text(f"[extra-build-dependencies]\n{body}", encoding="utf-8")
            argv += ["--config-file", str(config)]
        return self._run(argv, self.timeout)

    def uninstall(self, names: list[str]) -> Finished:
        """Remove `names` from the environment (before they are installed again otherwise)."""
        if self.python2:
            argv = [str(self.python), "-m", "pip", "uninstall", "-y", *names]
        else:
            argv = [uv_binary(), "pip", "uninstall", "--python", str(self.python), *names]
        return self._run(argv, 300.0)

    def rebuild(self, line: str) -> Finished:
        """Build `line` (`torch-cluster==1.5.9`) again against the packages of this environment
        (no build isolation, no cached wheel), in place of the one built against others."""
        argv = [uv_binary(), "pip", "install", "--python", str(self.python),
                "--no-build-isolation", "--no-deps", "--no-cache",
                "--reinstall-package", line.split("==")[0], line]  # fmt: skip
        return self._run(argv, self.timeout)

    def freeze(self) -> list[str]:
        """The exact versions installed (`uv pip freeze`; pip's for Python 2)."""
        if self.python2:
            argv = [str(self.python), "-m", "pip", "freeze", "--disable-pip-version-check",
                    "--all"]  # fmt: skip
        else:
            argv = [uv_binary(), "pip", "freeze", "--python", str(self.python)]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False,
                                  env=self.env, cwd=self.work)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            return []
        skip = ("pip==", "setuptools==", "wheel==") if self.python2 else ()
        return sorted(ln for ln in done.stdout.splitlines() if ln.strip() and
                      not ln.startswith(skip))  # fmt: skip

    def restore(self, good: list[str]) -> bool:
        """Put the environment back to the versions `good` lists; True when it is so."""
        if self.freeze() == good:
            return True
        plan = self._requirements(good, "restore.txt")
        if self.python2:
            current = [ln.split("==")[0] for ln in self.freeze()]
            extra = [n for n in current if n not in {g.split("==")[0] for g in good}]
            if extra:
                self._run([str(self.python), "-m", "pip", "uninstall", "-y", *extra], 300.0)
            self._run([str(self.python), "-m", "pip", "install", "-r", str(plan)], self.timeout)
        else:
            argv = [uv_binary(), "pip", "sync", "--python", str(self.python), str(plan)]
            self._run([*argv, *self.as_of_args()], self.timeout)
        return self.freeze() == good

    def probe(self, names: list[str], mode: str = "find") -> dict[str, str]:
        """Which of `names` the environment cannot find (mode "find") or import ("import"),
        each with its error; names it could not ask about count as missing."""
        if not names:
            return {}
        log = self.work / "probe.log"
        log.write_text("", encoding="utf-8")
        argv = [str(self.python), "-c", PROBE, json.dumps(names), mode]
        env = {**self.env, "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
               "CUDA_VISIBLE_DEVICES": "", "TORCH_DEVICE_BACKEND_AUTOLOAD": "0",
               "JAX_PLATFORMS": "cpu"}  # fmt: skip
        run_bounded(argv, self.work, env, log, PROBE_TIMEOUT, Limits())
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("MINER-PROBE "):
                return dict(json.loads(line[len("MINER-PROBE ") :]))
        return dict.fromkeys(names, "the probe did not finish")

    def add_path_hook(self) -> Path | None:
        """A .pth file that puts the working folder and its src/ first on the path."""
        found = sorted(self.venv.glob("lib/python*/site-packages"))
        if not found:
            return None
        hook = found[0] / "miner-checkout.pth"
        hook.write_text(PATH_HOOK, encoding="utf-8")
        return hook


# The log line before the install of the rest: what fails after it is the rest's failure.
SET_ASIDE = "miner: the rest after what was set aside:"
# The log line the install writes for those (read back as the repair's record).
WITHOUT_DEPENDENCIES = re.compile(r"^miner: (.+) without its dependency list:")
# uv's hint for a release whose metadata it cannot parse: "Metadata for `pandas` (v0.20.3) could
# not be parsed".
UNPARSED = re.compile(r"Metadata for `([A-Za-z0-9][\w.-]*)` \(v([^)\s]+)\) could not be parsed")


def _readable_requirement(row: str) -> str:
    """A metadata row as it was, or, for a `Requires-Dist` entry that does not parse, the
    entry's bare name."""
    if not row.startswith("Requires-Dist:"):
        return row
    value = row.split(":", 1)[1].strip()
    if requirement(value) is not None:
        return row
    name = re.match(r"[A-Za-z0-9][\w.-]*", value)
    return f"Requires-Dist: {name.group(0)}\n" if name else ""


def _written_since(log: Path, start: int) -> str:
    try:
        with log.open("rb") as fh:
            fh.seek(start)
            return fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _unparsed_pins(lines: list[str], output: str) -> list[str]:
    """The lines of `lines` that pin exactly a release uv says it cannot parse the metadata of."""
    found = {(canonical(m.group(1)), m.group(2)) for m in UNPARSED.finditer(output)}
    out = []
    for line in lines:
        parsed = requirement(line)
        pins = [s.version for s in parsed.specifier if s.operator == "=="] if parsed else []
        if parsed and not parsed.url and pins and (canonical(parsed.name), pins[0]) in found:
            out.append(line)
    return out
