"""Language detector: the language the main model is built and trained in.

The vote goes to the language of the project's own code that uses the primary framework, weighted
by role (model-defining and training code most) and by how much model and training code a file
holds; notebooks count through their code cells only, vendored code and bundled framework copies
not at all. Caffe is special: its nets are prototxt files run by the C++ `caffe` tool, so a Caffe
project is `cpp` unless its own Python defines the net (NetSpec) or trains it (pycaffe solvers),
or MATLAB drives it through matcaffe. Without a framework, the largest share of own code decides.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping

from miner.audit.detect import AuditContext
from miner.audit.detect.framework_map import module_framework
from miner.audit.detect.sources import CodeIndex, SourceFile, code_index
from miner.codebook import LANGUAGES, Evidence
from miner.models import Label

MODEL_WORK = ("model.class", "model.build", "proj.train", "proj.optimizer", "lua.backward",
              "fw.caffe_pytrain", "fw.caffe_netspec", "keras.functional")  # fmt: skip
# Language names in prose (not inside paths such as `matlab-scripts/`).
README_NAMES = {
    lang: re.compile(rf"(?<![\w/.-])(?:{pattern})(?![\w/-])", re.I)
    for lang, pattern in (
        ("python", "python"),
        ("matlab", "matlab|octave"),
        ("lua", "lua"),
        ("cpp", r"c\+\+"),
        ("javascript", r"javascript|node\.?js"),
        ("java", "java"),
        ("julia", "julia"),
        ("csharp", "c#"),
    )
}
SECONDARY = frozenset({"objc", "other"})  # counted, but never the model language by bytes alone


def _uses(sf: SourceFile, framework: str) -> bool:
    if any(module_framework(sf.lang, imp.module) == framework for imp in sf.imports):
        return True
    if sf.lang == "matlab":
        signal = {"caffe": "fw.caffe", "other:matconvnet": "fw.matconvnet",
                  "other:matlab-deep-learning": "fw.matlab_dl"}.get(framework)  # fmt: skip
        return bool(signal and sf.count(signal))
    return framework == "keras" and sf.lang == "python" and sf.count("fw.tf_keras") > 0


def _framework_votes(
    index: CodeIndex, framework: str
) -> tuple[dict[str, float], dict[str, SourceFile]]:
    """Per language: how much own code uses `framework` to build and train; the top file."""
    votes: dict[str, float] = defaultdict(float)
    best: dict[str, tuple[float, SourceFile]] = {}
    for sf in index.own():
        if not sf.read or not _uses(sf, framework):
            continue
        work = min(sum(sf.count(s) for s in MODEL_WORK), 10)
        score = sf.weight * (1 + work / 2)
        votes[sf.lang] += score
        if sf.lang not in best or score > best[sf.lang][0]:
            best[sf.lang] = (score, sf)
    return votes, {lang: sf for lang, (_, sf) in best.items()}


def _caffe_language(ctx: AuditContext, index: CodeIndex) -> tuple[str, Evidence] | None:
    """Where a Caffe model is defined and trained: pycaffe, matcaffe, or the C++ tool."""
    own = [sf for sf in index.own() if sf.read]
    for signal in ("fw.caffe_netspec", "fw.caffe_pytrain"):
        for sf in sorted(own, key=lambda f: -f.weight):
            hit = sf.hits.get(signal)
            if sf.lang == "python" and hit:
                line, text, _ = index.where_code(sf.path, hit.samples)
                return "python", Evidence(sf.path, line, text, "language.pycaffe")
    for sf in own:
        if sf.lang == "matlab" and sf.count("fw.caffe") and "Solver" in str(sf.hits["fw.caffe"]):
            return "matlab", Evidence(sf.path, 0, "matcaffe solver", "language.matcaffe")
    if index.framework_copies:  # a Caffe fork: the project's model is its C++ layers
        return "cpp", Evidence(index.framework_copies[0] + "src/caffe/", 0, "Caffe fork",
                               "language.caffe_fork")  # fmt: skip
    cpp = [sf for sf in own if sf.lang in ("cpp", "c") and _uses(sf, "caffe")]
    if cpp:  # own C++ layers or a C++ application on Caffe
        sf = max(cpp, key=lambda f: f.weight)
        imp = next(i for i in sf.imports if module_framework(sf.lang, i.module) == "caffe")
        return "cpp", Evidence(sf.path, imp.line, imp.text, "language.caffe_cpp")
    for sf in own:  # Python that drives the `caffe train` tool is the project's training code
        hit = sf.hits.get("caffe.cli_train")
        if hit and sf.lang == "python":
            line, text, _ = index.where_code(sf.path, hit.samples)
            return "python", Evidence(sf.path, line, text, "language.python_drives_caffe")
    for art in index.artifacts:
        hit = art.hits.get("caffe.cli_train")
        if hit and art.weight > 0:
            line, text, _ = index.where_code(art.path, hit.samples)
            return "cpp", Evidence(art.path, line, text, "language.caffe_tool")
    return None


def _readme_order(ctx: AuditContext) -> list[str]:
    readme = ctx.tree.readme
    text = (ctx.tree.read_text(readme) or "") if readme else ""
    first: dict[str, int] = {}
    for lang, pattern in README_NAMES.items():
        m = pattern.search(text)
        if m:
            first[lang] = m.start()
    return sorted(first, key=first.__getitem__)


def _decide(ctx: AuditContext, votes: dict[str, float]) -> str:
    """The top-voted language; near ties go to the one the README names first, else Python."""
    ranked = _ranked(votes)
    close = [lang for lang, v in ranked if v >= 0.8 * ranked[0][1]]
    if len(close) > 1:
        named = [lang for lang in _readme_order(ctx) if lang in close]
        if named:
            return named[0]
        if "python" in close:
            return "python"
    return ranked[0][0]


def _ranked(scores: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(scores.items(), key=lambda kv: -kv[1])


def _byte_shares(index: CodeIndex) -> dict[str, float]:
    shares: dict[str, float] = defaultdict(float)
    for sf in index.own():
        shares[sf.lang] += sf.size * sf.weight
    return shares


def _codebook_language(lang: str) -> str:
    return lang if lang in LANGUAGES else "other"


def detect_language(ctx: AuditContext, labels: Mapping[str, Label]) -> Iterable[Label]:
    """language, from the code that uses the primary framework (or the share of own code)."""
    index = code_index(ctx)
    primary_label = labels.get("primary_framework")
    primary = str(primary_label.value) if primary_label else "none"
    shares = _byte_shares(index)
    total = sum(shares.values()) or 1.0
    ctx.details["language_shares"] = {
        lang: round(v / total, 3) for lang, v in _ranked(shares) if v / total >= 0.005
    }
    if primary == "caffe":
        found = _caffe_language(ctx, index)
        if found:
            yield Label("language", found[0], (found[1],))
            return
    if primary == "torch7" and shares["lua"] > 0:
        lua_files = [sf for sf in index.own() if sf.lang == "lua"]
        torch = [sf for sf in lua_files if _uses(sf, "torch7")] or lua_files
        lua = max(torch, key=lambda f: f.weight)
        req = next((i for i in lua.imports if module_framework("lua", i.module)), None)
        evidence = Evidence(lua.path, req.line if req else 0, req.text if req else "Lua code",
                            "language.lua_torch")  # fmt: skip
        yield Label("language", "lua", (evidence,))
        return
    if primary != "none":
        votes, best = _framework_votes(index, primary)
        if votes:
            lang = _decide(ctx, votes)
            sf = best[lang]
            imp = next(
                (i for i in sf.imports if module_framework(sf.lang, i.module) == primary), None
            )
            line = (
                index.where(sf.path, imp.text)[0]
                if imp and sf.notebook
                else (imp.line if imp else 0)
            )
            text = imp.text if imp else f"uses {primary}"
            yield Label("language", _codebook_language(lang),
                        (Evidence(sf.path, line, text, "language.framework_code"),))  # fmt: skip
            return
    ranked = [lang for lang, _ in _ranked(shares) if lang not in SECONDARY]
    if not ranked:
        ranked = [lang for lang, _ in _ranked(shares)]
    if not ranked:
        yield Label("language", "other")
        return
    lang = ranked[0]
    share = shares[lang] / total
    top = max((sf for sf in index.own() if sf.lang == lang), key=lambda f: f.size * f.weight)
    yield Label("language", _codebook_language(lang),
                (Evidence(top.path, 0, f"{share:.0%} of the project's own code is {lang}",
                          "language.code_share"),))  # fmt: skip
