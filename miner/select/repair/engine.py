"""Build a project's environment, repairing what fails, one recorded step at a time.

Static rewrites come first (miner.select.repair.requirements). Then, on each interpreter in turn
(miner.select.repair.interpreter): a fresh environment; backports it ships dropped; the install,
and on each failure the one repair its diagnosis calls for (a pin moved, a wheel for a sdist that
does not build, an era build constraint, an extra build dependency, a requirement the code does
not need dropped), the environment first put back to the last state that worked; the entry
point's undeclared imports installed; setuptools present; the checkout on the path. A failure no
repair answers moves to the next interpreter, unless every interpreter would meet it (a version
the index never had, an unreachable host).
"""

from __future__ import annotations

import functools
import sys
import time

from miner.audit.closure import entry_scripts, import_closure
from miner.codebook import Evidence
from miner.select.pythons import interpreter_version
from miner.select.repair.api_bounds import bound_to_api
from miner.select.repair.attempt import (
    Attempt,
    BuildRequest,
    EnvironmentBuild,
    on_index,
)
from miner.select.repair.envs import Builder, python2_interpreters
from miner.select.repair.index import IndexSource, newest_release
from miner.select.repair.interpreter import interpreters_for
from miner.select.repair.moves import companion, jaxlib_bound, pillow_bound
from miner.select.repair.names import canonical
from miner.select.repair.pip_lines import uv_lines
from miner.select.repair.records import Repair
from miner.select.repair.requirements import (
    aliases,
    dated,
    duplicates,
    is_option,
    name_of,
    readable,
    reduce_freeze,
    urls,
)
from miner.select.repair.undeclared import shipped_modules

# The time all interpreters together may take, in units of one install's bound.
INTERPRETER_BUDGET = 2


def build_environment(request: BuildRequest) -> EnvironmentBuild:
    """Build the environment of `request`, with every repair recorded."""
    started = time.perf_counter()
    scripts = entry_scripts(request.command, request.root)
    closure = import_closure(request.root, scripts)
    written, repairs = uv_lines(list(request.lines), request.root)
    options = tuple(ln for ln in written if is_option(ln))
    lines = [ln for ln in written if not is_option(ln)]
    source = IndexSource.of(request.lines, request.env)
    as_of = request.commit_date if request.as_of else None
    listed = functools.partial(on_index, source)
    # A freeze is cut to what any file of the project imports, not only the entry point.
    everything = import_closure(request.root, sorted(request.root.rglob("*.py")))
    for rewrite in (lambda ls: aliases(ls, listed), readable,
                    lambda ls: uv_lines(ls, request.root), lambda ls: urls(ls, listed),
                    lambda ls: reduce_freeze(ls, everything), duplicates):  # fmt: skip
        lines, done = rewrite(lines)
        repairs += done
    lines, bounded = bound_to_api(lines, request.root, closure.files, source, as_of)
    repairs += bounded
    for index, line, reason in companion(lines):
        repairs.append(
            Repair(
                "companion",
                lines[index],
                line,
                reason,
                Evidence("requirements.txt", 0, lines[index], "repair.companion"),
            )
        )
        lines[index] = line
    shipped = shipped_modules(request.root)
    for bound, rule in ((pillow_bound(lines), "repair.pillow"),
                        (jaxlib_bound(lines), "repair.jaxlib")):  # fmt: skip
        if bound is not None:
            lines.append(bound[0])
            stated = Evidence("requirements.txt", 0, bound[0], rule)
            repairs.append(Repair("companion", "", bound[0], bound[1], stated))
    py2 = closure.python2 or request.python2
    python2 = py2 is not None
    if py2 is not None:
        found = python2_interpreters()
        if not found:
            text = f"Python 2 code ({py2.text}) and no 2.7 interpreter"
            failure = Evidence(py2.path, py2.line, text, "smoke.install.python2")
            seconds = time.perf_counter() - started
            return EnvironmentBuild(failure, seconds, "", tuple(repairs), tuple(lines), closure,
                                    python2=True, options=options)  # fmt: skip
        order = found[:1]
        repairs.append(Repair("python2", "Python 3", f"Python 2.7 ({order[0]})",
                              "the code is Python 2", py2))  # fmt: skip
        if as_of:  # pip for 2.7 has no --exclude-newer: the date becomes a bound per line
            lines, bounded = dated(lines, functools.partial(newest_release, source, as_of))
            repairs += bounded
    else:
        order, chosen = interpreters_for(request.interpreters, request.commit_date, lines,
                                         source, as_of, closure.names)  # fmt: skip
        repairs += chosen
    order = order or [*request.interpreters[:1]] or [sys.executable]
    last: EnvironmentBuild | None = None
    for number, interpreter in enumerate(order, start=1):
        builder = Builder(request.venv, request.work, request.log, request.env, request.timeout,
                          as_of, options, python2)  # fmt: skip
        attempt = Attempt(builder, interpreter, closure, source, as_of, list(lines))
        attempt.shipped = shipped
        # An import the freeze reduction left out is installed at the freeze's version.
        attempt.pins = {canonical(name_of(r.before)): r.before for r in repairs
                        if r.kind == "freeze"}  # fmt: skip
        last = attempt.run(started, tuple(repairs), options)
        if attempt.builder.options != options:  # a host out of reach is out of reach for all
            repairs += [r for r in attempt.repairs if r.kind == "index"]
            options = attempt.builder.options
        syntax = _syntax_error(last)
        if (last.failure is None and syntax is None) or number == len(order):
            return last
        if (
            last.failure is not None
            and attempt.diagnosis
            and attempt.diagnosis.interpreter_independent
        ):
            with request.log.open("a", encoding="utf-8") as fh:
                fh.write(
                    f"miner: no other interpreter changes a {attempt.diagnosis.kind} failure\n"
                )
            return last
        spent = time.perf_counter() - started
        if spent > request.timeout * INTERPRETER_BUDGET:
            # Each interpreter repeats the repairs before the failure: a bound on all of them
            with request.log.open("a", encoding="utf-8") as fh:
                fh.write(f"miner: the install has taken {spent:.0f} s over {number} "
                         f"interpreter(s), more than {INTERPRETER_BUDGET} times its bound "
                         f"({request.timeout:.0f} s); no other interpreter is tried\n")  # fmt: skip
            return last
        nxt = order[number]
        before = interpreter_version(interpreter) or (0, 0)
        after = interpreter_version(nxt) or (0, 0)
        if syntax is not None and after >= before:
            return last  # a newer interpreter does not bring back old syntax
        evidence = last.failure or syntax
        assert evidence is not None
        why = "the install failed"
        if last.failure is None:
            why = f"a dependency is not valid Python {before[0]}.{before[1]}"
        repairs.append(Repair("interpreter", "Python {}.{}".format(*before),
                              "Python {}.{}".format(*after),
                              f"{why} on Python {before[0]}.{before[1]}", evidence))  # fmt: skip
        with request.log.open("a", encoding="utf-8") as fh:
            fh.write(f"miner: {why} on {interpreter}; trying {nxt}\n")
    assert last is not None
    return last


def _syntax_error(built: EnvironmentBuild) -> Evidence | None:
    """A SyntaxError importing a dependency (`async` became a keyword in 3.7): the evidence."""
    for module, error in built.import_failures:
        if error.startswith("SyntaxError"):
            return Evidence("import check", 0, f"import {module}: {error}"[:200],
                            "repair.interpreter.syntax")  # fmt: skip
    return None
