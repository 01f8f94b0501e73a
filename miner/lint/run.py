"""Lint one checkout: audit it, scan its code, run every selected check."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from miner.errors import ConfigError
from miner.lint.rules import CHECKS, RULE_BY_CODE, RULES, Finding, LintContext

LINTED_SUFFIXES = (
    ".py", ".ipynb", ".lua", ".prototxt", ".cfg", ".md", ".rst", ".txt", ".toml", ".yml", ".yaml",
    ".m", ".cpp", ".cu", ".c", ".jl", ".r", ".js", ".ts",
)  # fmt: skip


@dataclass(frozen=True)
class LintOptions:
    """Which codes to report: `select` and `ignore` take codes or prefixes (`MNR1`)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@dataclass(frozen=True)
class LintReport:
    """The findings for one project, in code order, and the codes that were checked."""

    root: Path
    findings: tuple[Finding, ...]
    checked: tuple[str, ...]
    config_source: str | None = None
    suggestions: dict[str, str] = field(default_factory=dict)
    kind: str = "training"  # the project kind (miner.lint.scope) that decided which codes apply
    empty: bool = False  # no code, docs or dependency files: nothing was linted


def _check_codes(codes: tuple[str, ...], where: str) -> tuple[str, ...]:
    known = [rule.code for rule in RULES]
    for code in codes:
        if not any(k.startswith(code.upper()) for k in known):
            raise ConfigError(f"{where}: unknown lint code {code!r} (codes: {', '.join(known)})")
    return tuple(c.upper() for c in codes)


def project_options(root: Path) -> tuple[LintOptions, str | None]:
    """`[tool.miner.lint]` of the project's pyproject.toml (select, ignore), if present."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return LintOptions(), None
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    section = table.get("tool", {}).get("miner", {}).get("lint")
    if not isinstance(section, dict):
        return LintOptions(), None
    where = f"{path} [tool.miner.lint]"
    values: dict[str, tuple[str, ...]] = {}
    for key in ("select", "ignore"):
        raw = section.get(key, [])
        if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
            raise ConfigError(f"{where}: {key} must be a list of codes")
        values[key] = _check_codes(tuple(raw), where)
    return LintOptions(values["select"], values["ignore"]), str(path)


def selected(code: str, options: LintOptions) -> bool:
    """Whether `code` is reported under `options` (select first, then ignore); an opt-in code
    only where `select` names it."""
    rule = RULE_BY_CODE.get(code)
    if (options.select or (rule is not None and rule.opt_in)) and not any(
        code.startswith(p) for p in options.select
    ):
        return False
    return not any(code.startswith(p) for p in options.ignore)


def lint(path: Path | str, options: LintOptions | None = None) -> LintReport:
    """Lint the project at `path`: the command line's options override the project's config."""
    from miner.audit import audit_tree
    from miner.audit.files import RepoTree
    from miner.lint.code_facts import scan_code
    from miner.lint.scope import OwnCode, project_kind
    from miner.lint.suggest import suggested_sections

    root = Path(path)
    if not root.is_dir():
        raise ConfigError(f"{root}: not a folder")
    config, source = project_options(root)
    cli = options or LintOptions()
    merged = LintOptions(
        select=_check_codes(cli.select, "--select") or config.select,
        ignore=(*config.ignore, *_check_codes(cli.ignore, "--ignore")),
    )
    tree = RepoTree(root)
    if not any(f.suffix in LINTED_SUFFIXES or "/" not in f.path for f in tree.files):
        return LintReport(root, (), (), source, {}, kind="inactive", empty=True)
    result = audit_tree(tree)
    facts = scan_code(tree)
    readme = tree.read_text(tree.readme) if tree.readme else ""
    code = OwnCode(facts.code_lines, facts.bundled, readme or "", "\n".join(facts.config_text))
    kind = project_kind(result, code)
    ctx = LintContext(tree, result, facts, tuple(tree.codebook_docs), kind)
    findings: list[Finding] = []
    for check in CHECKS:
        findings.extend(
            f for f in check(ctx)
            if kind in RULE_BY_CODE[f.code].kinds and selected(f.code, merged)
        )  # fmt: skip
    checked = tuple(
        code
        for code, rule in RULE_BY_CODE.items()
        if kind in rule.kinds and not rule.folded_into and selected(code, merged)
    )
    return LintReport(
        root=root,
        findings=tuple(sorted(findings, key=lambda f: (f.code, f.path, f.line))),
        checked=checked,
        config_source=source,
        suggestions=suggested_sections(ctx),
        kind=kind,
    )
