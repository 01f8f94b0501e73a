"""`miner annotate ...`: blind sheets for two annotators, import, review, agreement, conflicts,
resolution into a consensus layer, and scoring any labels against it."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from miner.cli import app
from miner.cli.common import (
    DbOption,
    StudyOption,
    open_store,
    settings,
    store_if_present,
    write_text,
)

annotate_app = typer.Typer(
    help="Two blind annotators: prepare sheets, import them, measure agreement, resolve "
    "conflicts into a consensus, and score the auto labels against it.",
    no_args_is_help=True,
)
app.add_typer(annotate_app, name="annotate")

RoundOption = Annotated[
    str, typer.Option("--round", "-r", help="Round name (calibration rounds get their own).")
]
OutputOption = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write to FILE instead of stdout.")
]


class AgreementFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    latex = "latex"
    csv = "csv"


class ScoreFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    csv = "csv"


class Method(str, Enum):
    discussion = "discussion"
    tiebreaker = "tiebreaker"


class _Terminal:
    """The terminal front end of `review` and `resolve`: Ctrl-C or a closed input at a prompt
    stops like `q` (everything answered is saved already), remembered for the exit code."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console(highlight=False)
        self.interrupted = False

    def ask(self, prompt: str) -> str:
        from rich.markup import escape

        try:
            return self.console.input(f"[bold]{escape(prompt)}[/bold]: ")
        except EOFError:
            return "q"
        except KeyboardInterrupt:
            self.interrupted = True
            self.console.print()
            return "q"

    def dialog(self) -> Any:
        from miner.annotate.dialog import Dialog

        return Dialog(ask=self.ask, say=lambda text: self.console.print(text, markup=False))


@annotate_app.command("prepare")
def prepare(
    annotator: Annotated[
        list[str], typer.Option("--annotator", "-a", help="Annotator name (repeat for several).")
    ],
    sample: Annotated[int | None, typer.Option(help="Draw N repositories (default: all).")] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed of the sample (default 1).")] = None,
    stratify: Annotated[
        str | None, typer.Option(help="Stratify the sample by this field's auto label.")
    ] = None,
    round_name: RoundOption = "main",
    prefill: Annotated[
        bool, typer.Option("--prefill", help="Show the machine labels (not blind).")
    ] = False,
    xlsx: Annotated[
        bool, typer.Option("--xlsx", help="Also write XLSX sheets with drop-downs.")
    ] = False,
    repos_from: Annotated[
        str | None, typer.Option(help="Reuse another round's repositories.")
    ] = None,
    field: Annotated[
        list[str] | None,
        typer.Option("--field", "-f", help="Ask only for these fields (default: every field)."),
    ] = None,
    exclude_round: Annotated[
        list[str] | None, typer.Option(help="Leave out a round's repositories.")
    ] = None,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Write a sheet per annotator: pinned commits, codebook columns, evidence and notes."""
    from miner.annotate.prepare import prepare_sheets

    config = settings(study, db)
    with open_store(config) as store:
        result = prepare_sheets(
            store,
            config.annotations,
            annotator,
            round_name,
            sample,
            seed,
            stratify,
            prefill,
            xlsx,
            repos_from,
            exclude_round or (),
            field,
        )
    kind = "pre-filled" if result.prefill else "blind"
    what = "new round" if result.new_round else "existing round"
    typer.echo(f"round {result.round} ({what}): {result.repos} of {result.population} repositories")
    for stratum, count in result.strata.items():
        typer.echo(f"  stratum {stratum}: {count}")
    for path in result.sheets:
        typer.echo(f"wrote {kind} sheet {path}")


@annotate_app.command("import")
def import_sheet(
    annotator: Annotated[str, typer.Argument(help="Whose sheet this is.")],
    file: Annotated[Path, typer.Argument(help="The filled-in sheet (CSV or XLSX).")],
    round_name: RoundOption = "main",
    study: StudyOption = None,
) -> None:
    """Validate a filled-in sheet strictly and store it as an immutable layer."""
    from miner.annotate.layers import import_layer

    config = settings(study)
    result = import_layer(config.annotations, annotator, file, round_name)
    if result.already:
        typer.echo(f"{result.layer}: this file was already imported ({result.rows} repositories)")
        return
    for warning in result.warnings:
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(f"imported {result.layer}: {result.rows} repositories, sha256 {result.sha256[:16]}")


@annotate_app.command("review")
def review_cmd(
    annotator: Annotated[str, typer.Option("--annotator", "-a", help="Whose sheet to fill in.")],
    round_name: RoundOption = "main",
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Label in the terminal beside the relevant doc lines; stop with q, resume any time."""
    from miner.annotate.review import review
    from miner.procs import interruptible

    config = settings(study, db)
    terminal = _Terminal()
    with interruptible(), store_if_present(config) as store:
        result = review(config.annotations, annotator, terminal.dialog(), round_name, store)
    state = "interrupted" if terminal.interrupted else "stopped" if result.stopped else "done"
    typer.echo(
        f"{state}: {result.answered} answers saved to {result.path};"
        f" {result.repos_complete}/{result.repos_total} repositories complete"
    )
    if terminal.interrupted:
        raise typer.Exit(130)


@annotate_app.command("serve")
def serve_cmd(
    round_name: RoundOption = "main",
    host: Annotated[str, typer.Option(help="Address to listen on (keep it local).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8765,
    adjudicator: Annotated[
        str, typer.Option(help="The name decisions are recorded under (editable per decision).")
    ] = "adjudicator",
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Label, adjudicate and follow a round in the browser; prints one link per person."""
    from miner.annotate.web import WebConfig, create_app, links
    from miner.annotate.web.listen import base_url, listening_socket, serve
    from miner.errors import ConfigError

    config = settings(study, db)
    app = create_app(WebConfig(config.annotations, round_name, config.db, adjudicator))
    try:
        sock = listening_socket(host, port)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    for who, url in links(base_url(sock), app.state.web.access):
        typer.echo(f"{who}: {url}")
    typer.echo("Ctrl+C stops the server; every answer is already saved.")
    serve(app, sock)


@annotate_app.command("agreement")
def agreement_cmd(
    annotator_a: Annotated[str, typer.Argument(help="First annotator.")],
    annotator_b: Annotated[str, typer.Argument(help="Second annotator.")],
    round_name: Annotated[
        str | None,
        typer.Option(
            "--round", "-r", help="One round (default: every round both were imported in)."
        ),
    ] = None,
    field: Annotated[
        list[str] | None, typer.Option("--field", "-f", help="Only these fields.")
    ] = None,
    fmt: Annotated[
        AgreementFormat, typer.Option("--format", help="Output format.")
    ] = AgreementFormat.text,
    output: OutputOption = None,
    study: StudyOption = None,
) -> None:
    """Per field: n, p_o, Cohen's kappa with 95% CI, prevalence, PABAK, AC1, alpha (MASI)."""
    from miner.annotate.agreement import agreement
    from miner.annotate.render import render_agreement

    config = settings(study)
    reports = agreement(config.annotations, annotator_a, annotator_b, round_name, field)
    write_text(render_agreement(reports, fmt.value), output)


@annotate_app.command("conflicts")
def conflicts_cmd(
    annotator_a: Annotated[str, typer.Argument(help="First annotator.")],
    annotator_b: Annotated[str, typer.Argument(help="Second annotator.")],
    round_name: RoundOption = "main",
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """List the disagreements (with the machine label) and accept the agreements."""
    from miner.annotate.conflicts import write_conflicts

    config = settings(study, db)
    with store_if_present(config) as store:
        result = write_conflicts(config.annotations, annotator_a, annotator_b, round_name, store)
    agreed = result.compared - len(result.conflicts)
    derived = (
        f"; the {result.compared} count {result.derived} derived values:"
        " paper_framework where both chose keras"
        if result.derived
        else "; all annotated, none derived"
    )
    typer.echo(
        f"round {result.round}: {len(result.conflicts)} conflicts in {result.compared} values"
        f" of {result.items} repositories ({agreed} agreed and accepted{derived})"
    )
    typer.echo(f"wrote {result.path}")
    typer.echo(
        f"consensus: {result.consensus_rows} repositories, {result.unresolved} values unresolved"
    )


@annotate_app.command("resolve")
def resolve_cmd(
    round_name: RoundOption = "main",
    source: Annotated[
        Path | None,
        typer.Option(
            "--from",
            help="An edited conflicts file (consensus_value, resolved_by, method, rationale).",
        ),
    ] = None,
    by: Annotated[
        str | None, typer.Option("--by", help="Who decides (default for blank resolved_by cells).")
    ] = None,
    method: Annotated[Method, typer.Option(help="How conflicts were decided.")] = Method.discussion,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Record consensus decisions, interactively or from the edited conflicts file."""
    from miner.annotate.reconcile import build_consensus, resolve_from_file, resolve_interactive
    from miner.errors import ConfigError

    config = settings(study, db)
    if source is not None:
        count = resolve_from_file(config.annotations, round_name, source, by, method.value)
    else:
        if not by:
            raise ConfigError("say who decides: --by NAME")
        terminal = _Terminal()
        with store_if_present(config) as store:
            count = resolve_interactive(
                config.annotations, round_name, by, method.value, terminal.dialog(), store
            )
        if terminal.interrupted:
            typer.echo(f"interrupted: {count} decision(s) recorded in round {round_name}")
            raise typer.Exit(130)
    consensus = build_consensus(config.annotations)
    typer.echo(f"recorded {count} decision(s) in round {round_name}")
    typer.echo(
        f"wrote {consensus.path}: {consensus.rows} repositories, {consensus.resolved} resolved,"
        f" {consensus.unresolved} unresolved"
    )


@annotate_app.command("score")
def score_cmd(
    truth: Annotated[
        str, typer.Option(help="consensus, auto, ANNOTATOR@ROUND or a labels file (CSV/TSV/XLSX).")
    ] = "consensus",
    labels: Annotated[
        str, typer.Option(help="auto (the store's labels), consensus, ANNOTATOR@ROUND or a file.")
    ] = "auto",
    field: Annotated[
        list[str] | None, typer.Option("--field", "-f", help="Only these fields.")
    ] = None,
    misses: Annotated[
        str | None, typer.Option(help="List the repositories the labels get wrong in FIELD.")
    ] = None,
    fmt: Annotated[ScoreFormat, typer.Option("--format", help="Output format.")] = ScoreFormat.text,
    output: OutputOption = None,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Score labels against a truth: accuracy, precision/recall/F1, kappa, confusion tables."""
    from miner.annotate.score import load_source, score
    from miner.annotate.score_render import render_misses, render_score

    config = settings(study, db)
    opened: list[Any] = []

    def store() -> Any:
        opened.append(open_store(config))
        return opened[-1]

    try:
        truth_table = load_source(truth, config.annotations, store)
        labels_table = load_source(labels, config.annotations, store)
        report = score(truth_table, labels_table, [misses] if misses else field)
    finally:
        for handle in opened:
            handle.close()
    if misses:
        chosen = next(f for f in report.fields if f.field == misses)
        write_text(render_misses(chosen.misses, fmt.value), output)
    else:
        write_text(render_score(report, fmt.value), output)


@annotate_app.command("status")
def status_cmd(study: StudyOption = None) -> None:
    """Rounds, sheets, imported layers, open conflicts, consensus and the audit log's state."""
    from miner.annotate.status import study_status

    config = settings(study)
    for line in study_status(config.annotations):
        typer.echo(line)
