"""Package names out of requirement lines and install commands (pip, conda, apt, luarocks ...).

Shared by the dependency-file parsers (Dockerfiles, install scripts) and by the documentation
rules (a `pip install X` in a README), so both read a command the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME = re.compile(r"[A-Za-z0-9][\w.+\-]*")
REQUIREMENT = re.compile(r"([A-Za-z0-9][\w.\-]*)\s*(\[[^\]]*\])?\s*(.*)")
SPEC_PART = re.compile(r"\(?\s*(?:===|==|>=|<=|~=|!=|<|>|=)?\s*[vr]?\d[\w.*+!=\-]*\s*\)?")
OPERATOR_ONLY = re.compile(r"(?:===|==|>=|<=|~=|!=|<|>)\s*\S+")
WHEEL = re.compile(r"/([A-Za-z0-9_.]+?)-(\d[\w.]*)-[^/\s]*\.whl")
EGG = re.compile(r"#egg=([\w.\-]+)")
MANAGER = re.compile(
    r"(?:^|[^\w.\-/])(?:sudo\s+(?:-\S+\s+)*)?"
    r"((?:python[\d.]*|py)\s+-m\s+pip|pip[\d.]*(?:\.exe)?|conda|mamba|micromamba|pipenv|"
    r"poetry|apt-get|apt|yum|dnf|apk|brew|luarocks|npm|yarn|gem)"
    r"\s+(install|add|create|i)\b(?=([^;&|`\n]*))",  # the lookahead lets a later command match
    re.IGNORECASE,
)
# Options whose value is the next word, so the value is not read as a package.
TAKES_VALUE = frozenset(
    "-c --channel -n --name -p --prefix -f --find-links -i --index-url --extra-index-url -t "
    "--target --root -r --requirement -e --editable --upgrade-strategy --python --install-option "
    "--global-option -o --option --no-binary --only-binary --trusted-host --cache-dir --src "
    "--platform --python-version --implementation --abi --default-timeout --timeout --file "
    "--server --tree --registry".split()
)  # fmt: skip
COMMAND_WORDS = frozenset(
    "sudo pip pip3 pip2 python python3 conda mamba pipenv poetry apt-get apt yum dnf apk brew "
    "luarocks npm yarn gem cd export source".split()
)
NOT_A_PACKAGE = frozenset({"install", "add", "create", "update", "upgrade", "y", "yes", "all"})
# Words that end the package list of a command quoted in prose ("pip install numpy and then ...").
PROSE_STOP = frozenset(
    "and or then to the a an with for in on from if via using by first after before it this that "
    "you we is are be will can should command commands package packages following below above "
    "as also etc".split()
)


@dataclass(frozen=True)
class InstallCommand:
    """One package named in an install command."""

    manager: str  # pip | conda | apt | luarocks | npm | ...
    name: str
    spec: str


def is_pinned(spec: str) -> bool:
    """True when a version constraint carries a version number (a URL alone does not)."""
    return bool(re.search(r"\d", spec)) and "://" not in spec and not spec.startswith("@")


def _spec_ok(spec: str) -> bool:
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    return bool(parts) and all(SPEC_PART.fullmatch(p) or OPERATOR_ONLY.fullmatch(p) for p in parts)


def requirement_line(raw: str) -> list[tuple[str, str]]:
    """(name, spec) pairs of one requirements.txt-style line; [] for comments, options, prose."""
    line = re.split(r"\s+#|^#", raw.strip(), maxsplit=1)[0].strip()
    if not line:
        return []
    egg = EGG.search(raw)
    if line.startswith(("-e", "--editable")):
        return [(egg.group(1), "")] if egg else []  # `-e .` is the project itself
    if line.startswith("-"):
        return []  # --index-url, -f, --extra-index-url ...
    # options pip takes after a requirement on its line (`jax[tpu]==0.4.14 -f <url>`, `--hash`)
    line = re.split(r"\s+--?[A-Za-z]", line, maxsplit=1)[0]
    if "://" in line or line.startswith("git+"):
        if egg:
            return [(egg.group(1), "")]
        wheel = WHEEL.search(line)
        if wheel:
            return [(wheel.group(1), "==" + wheel.group(2))]
        direct = re.match(r"([A-Za-z0-9][\w.\-]*)\s*@\s*(\S+)", line)
        return [(direct.group(1), "@ " + direct.group(2))] if direct else []
    line = line.split(";", 1)[0].strip()  # environment markers
    m = REQUIREMENT.fullmatch(line)
    if not m:
        return []
    name, spec = m.group(1), m.group(3).strip()
    return [(name, spec)] if not spec or _spec_ok(spec) else []


def _split_package(manager: str, token: str) -> tuple[str, str] | None:
    token = re.sub(r"%\w+%|\$\{?\w+\}?", "", token.strip("'\""))  # %GPU%, ${VERSION}
    if not token or token.startswith((".", "/", "~", "<", "[")) or token.endswith((".txt", ".yml")):
        return None
    if manager == "pip" or manager == "pipenv":
        pairs = requirement_line(token)
        return pairs[0] if len(pairs) == 1 else None
    if manager == "npm" and "@" in token[1:]:
        name, _, spec = token.rpartition("@")
        return (name, spec) if NAME.fullmatch(name.lstrip("@").replace("/", "-")) else None
    m = re.fullmatch(r"([A-Za-z0-9][\w.+\-:]*?)(?:(==?|>=|<=|@)(\S+))?", token)
    if not m or "::" in token and manager != "conda":
        return None
    name = m.group(1).split("::")[-1].rstrip(":")
    return (name, (m.group(2) or "") + (m.group(3) or "")) if name else None


def _manager(word: str) -> str:
    word = word.lower()
    if "pip" in word and "pipenv" not in word:
        return "pip"
    if word in ("mamba", "micromamba"):
        return "conda"
    if word in ("apt-get", "apt", "yum", "dnf", "apk", "brew"):
        return "apt"
    return "npm" if word == "yarn" else word


def install_commands(text: str) -> list[InstallCommand]:
    """Packages named by install commands in one logical shell line."""
    found: list[InstallCommand] = []
    low = text.lower()
    if "install" not in low and "add " not in low and "create" not in low and " i " not in low:
        return found  # most lines; the full pattern is much slower than these tests
    for m in MANAGER.finditer(text):
        manager, verb = _manager(m.group(1)), m.group(2).lower()
        if verb == "create" and manager != "conda" or verb == "add" and manager not in (
            "poetry", "npm", "apt"
        ):  # fmt: skip
            continue
        if verb == "i" and manager != "npm":
            continue
        words = m.group(3).replace("\\", " ").split()
        skip_next = False
        for word in words:
            if skip_next:
                skip_next = False
                continue
            if word.startswith("-"):
                skip_next = word.split("=", 1)[0] in TAKES_VALUE and "=" not in word
                continue
            low = word.rstrip(".,;:)").lower()
            if low in PROSE_STOP or low in COMMAND_WORDS or word.startswith((">", "2>", "#", "(")):
                break  # the end of this command's package list
            if word.lower() in NOT_A_PACKAGE or word in (">", ">>", "2>&1", "&&"):
                continue
            bare = word.rstrip(".,;:)")
            pair = _split_package(manager, bare)
            if pair and NAME.match(pair[0]):
                found.append(InstallCommand(manager, pair[0], pair[1]))
            if bare != word:
                break  # "pip install numpy, then ..." ends at the punctuation
    return found
