"""The citation graphs Cora and CiteSeer in the form LINQS published them, which the first graph
network projects read straight from disk (Kipf's pygcn, pyGAT and the many that copied their
`load_data`): `<dir>/cora.content`, one paper a line (`id`, a 0/1 word vector, the class name,
tab-separated), and `<dir>/cora.cites`, one citation a line (`cited citing`). The writer fills
that folder with a synthetic graph of the real node count, vector width and class names: such
projects index their splits by position (`range(140)`, `range(500, 1500)`). Where the project
ships its citations and leaves the larger content file out, the papers are the ones it cites."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from miner.select.standins.benchmark_layouts import WrittenFiles, seeded_rng


@dataclass(frozen=True)
class CitationGraph:
    """A LINQS citation graph: papers, the width of their word vectors, citations, classes."""

    papers: int
    words: int
    citations: int
    classes: tuple[str, ...]


GRAPHS = {
    "cora": CitationGraph(2708, 1433, 5429, (
        "Case_Based", "Genetic_Algorithms", "Neural_Networks", "Probabilistic_Methods",
        "Reinforcement_Learning", "Rule_Learning", "Theory",
    )),
    "citeseer": CitationGraph(3312, 3703, 4732, ("Agents", "AI", "DB", "IR", "ML", "HCI")),
}  # fmt: skip
WORDS_PER_PAPER = 18  # about Cora's mean


def _cited_ids(path: Path) -> list[str]:
    """The paper ids of a citation file, in order of first appearance; [] when there is none."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return list(dict.fromkeys(token for line in text.splitlines() for token in line.split()[:2]))


def citation_root(path: PurePosixPath) -> tuple[PurePosixPath, str] | None:
    """The folder and the graph's name when `path` is one of its two files (`cora.content`)."""
    stem, _, suffix = path.name.partition(".")
    if stem.lower() in GRAPHS and suffix in ("content", "cites"):
        return path.parent, stem
    return None


def write_citation_graph(root: Path, seed: int, name: str = "cora") -> WrittenFiles:
    """`<name>.content` and `<name>.cites` at `root`: every paper with WORDS_PER_PAPER words and
    a class, each class a block of words its papers use more often, and citations that mostly
    stay within a class; every paper cites or is cited at least once. Citations the folder
    already holds are kept, and the content is written for their papers."""
    graph = GRAPHS[name.lower()]
    state = seeded_rng(seed, "citation", name)
    root.mkdir(parents=True, exist_ok=True)
    cites_file = root / f"{name}.cites"
    shipped = _cited_ids(cites_file)  # the project's own citations, its content left out
    ids: list[str] = shipped or [str(10_000 + 7 * i) for i in range(graph.papers)]
    graph = CitationGraph(len(ids), graph.words, graph.citations, graph.classes)
    labels = state.randint(0, len(graph.classes), size=graph.papers)
    block = graph.words // len(graph.classes)
    rows = []
    for paper, label in zip(ids, labels, strict=True):
        vector = ["0"] * graph.words
        own = state.randint(label * block, (label + 1) * block, size=WORDS_PER_PAPER // 2)
        anywhere = state.randint(0, graph.words, size=WORDS_PER_PAPER - own.size)
        for word in (*own, *anywhere):
            vector[int(word)] = "1"
        rows.append("\t".join([paper, *vector, graph.classes[label]]))
    (root / f"{name}.content").write_text("\n".join(rows) + "\n", encoding="utf-8")
    content = (f"{name}.content", (graph.papers, graph.words + 2), "str")
    if shipped:
        return WrittenFiles(root, 1, (content,), len(graph.classes))
    by_class = [
        [i for i in range(graph.papers) if labels[i] == c] for c in range(len(graph.classes))
    ]
    cites = []
    for i in range(graph.citations):
        citing = i % graph.papers  # every paper once before any twice
        pool = by_class[labels[citing]] if state.rand() < 0.8 else range(graph.papers)
        cited = int(state.choice(list(pool)))
        cites.append(f"{ids[cited]}\t{ids[citing]}")
    (root / f"{name}.cites").write_text("\n".join(cites) + "\n", encoding="utf-8")
    citation_file = (f"{name}.cites", (graph.citations, 2), "int")
    return WrittenFiles(root, 2, (content, citation_file), len(graph.classes))
