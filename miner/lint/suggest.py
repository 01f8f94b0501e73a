"""A suggested "Requirements" section, filled from what the project states and its code implies.

Written by `miner lint --fix` into a separate file for the maintainer to edit: what miner could
not find is left as a `<placeholder>`, never guessed.
"""

from __future__ import annotations

from miner.lint.context import LintContext
from miner.lint.framework_use import framework_deps
from miner.lint.statements import python_version_stated


def suggested_sections(ctx: LintContext) -> dict[str, str]:
    """Software, Hardware, Data and Reproducibility lines, each a Markdown bullet list."""
    sections: dict[str, str] = {}
    python = python_version_stated(ctx.tree, ctx.audit.details)
    framework = ctx.label("primary_framework") or "<framework>"
    deps = framework_deps(ctx)
    pinned = next((d for d in deps if str(d.get("spec", "")).strip()), None)
    version = f"{pinned['name']}{pinned['spec']}" if pinned else f"{framework}==<version>"
    software = [
        f"- Python: as stated at {python.path}:{python.line}" if python else "- Python: <3.x>",
        f"- {version}" + (f" (from {pinned['source']})" if pinned else ""),
        "- Other packages: `pip install -r requirements.txt`"
        if ctx.audit.value("dependency_file")
        else "- Other packages: <list them with versions>",
    ]
    sections["Software"] = "\n".join(software)
    if ctx.facts.gpu:
        count = ctx.facts.gpus
        gpus = f"{count} x <GPU model>" if count else "<N> x <GPU model>"
        hardware = [f"- Trained on {gpus}, <memory> GB each", "- Evaluated on <GPU model>"]
        if ctx.facts.mixed_precision:
            site = ctx.facts.mixed_precision[0]
            hardware.append(f"- Mixed precision (see {site.path}:{site.line})")
        if ctx.facts.batch:
            site = ctx.facts.batch_size[0][1]
            hardware.append(f"- Batch size {ctx.facts.batch} (default at {site.path}:{site.line})")
    else:
        hardware = ["- Trained and evaluated on <CPU model>, <N> threads, <RAM> GB of RAM"]
    sections["Hardware"] = "\n".join(hardware)
    if ctx.audit.value("training_code"):
        data = "- Data: <where to download it, and the command that prepares it>"
        if ctx.audit.value("data_available"):
            ev = ctx.audit.labels["data_available"].evidence[:1]
            data = f"- Data: as described at {ev[0].path}:{ev[0].line}" if ev else data
        sections["Data"] = data
        seeds = (
            "- Seed: set with `--seed` (default <N>)"
            if ctx.facts.seed
            else "- Seed: <add a --seed option and set every RNG with it>"
        )
        threads = "- CPU threads: <N> (set OMP_NUM_THREADS / torch.set_num_threads)"
        if ctx.facts.threads:
            site = ctx.facts.threads[0]
            threads = f"- CPU threads: set at {site.path}:{site.line}"
        sections["Reproducibility"] = seeds + "\n" + threads
    return sections


def requirements_markdown(name: str, sections: dict[str, str]) -> str:
    """The suggested section as Markdown, headed for pasting into a README."""
    parts = [f"## Requirements\n\n<!-- suggested by miner lint for {name}: edit before use -->"]
    parts += [f"### {title}\n\n{body}" for title, body in sections.items()]
    return "\n\n".join(parts) + "\n"
