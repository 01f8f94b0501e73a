"""`select --smoke`, `miner smoke`, `miner report smoke` and running a folder of manifests."""

from __future__ import annotations

import csv
from pathlib import Path

import yaml
from smoke_projects import TINYFIT, build_wheel, train
from typer.testing import CliRunner

from miner.cli import app
from miner.codebook import Evidence, parse_value
from miner.models import AuditResult, Label
from miner.select.selection import SelectOptions, select_candidates
from miner.select.smoke import SmokeOptions
from miner.store import Store

LABELS = {"primary_framework": "pytorch", "frameworks": "pytorch", "domain": "vision",
          "training_code": "yes", "data_available": "yes"}  # fmt: skip
SEEDED = "import random\nrandom.seed(0)\n"  # one more seed site: a higher static score


def build_study(root: Path) -> Path:
    """A store with two audited clones: `lab/pinned` scores higher but cannot install."""
    wheels = root / "wheels"
    build_wheel(wheels, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    header = f"--no-index\n--find-links {wheels}\n"
    readme = "# Fit\n\nTrain with `python train.py`.\n"
    projects = {
        "lab/fits": {"requirements.txt": header + "tinyfit==0.1\n", "train.py": train(),
                     "README.md": readme},
        "lab/pinned": {"requirements.txt": header + "tinyfit==9.9\n",
                       "train.py": SEEDED + train(), "README.md": readme},
    }  # fmt: skip
    store = Store(root / "data" / "miner.db")
    now = "2024-01-01T00:00:00+00:00"
    for repo_id, (name, files) in enumerate(projects.items(), start=1):
        checkout = root / "data" / "repos" / name
        for rel, text in files.items():
            (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
            (checkout / rel).write_text(text)
        sha = f"{repo_id:040x}"
        store.upsert("repos", [{"id": repo_id, "full_name": name, "first_seen": now,
                                "last_seen": now}], ["id"])  # fmt: skip
        clone = {"repo_id": repo_id, "full_name": name, "path": f"repos/{name}",
                 "status": "cloned", "commit_sha": sha, "cloned_at": now,
                 "commit_date": "2021-02-01T00:00:00+00:00"}  # fmt: skip
        store.upsert("clones", [clone], ["repo_id"])
        labels = {
            field: Label(field, parse_value(field, cell), (Evidence("train.py", 1, "x", "t"),))
            for field, cell in LABELS.items()
        }
        store.save_audit(repo_id, sha, name, AuditResult(labels=labels, analyzed_at=now))
    store.close()
    return root / "data" / "miner.db"


def offline_env(root: Path) -> dict[str, str]:
    return {"UV_OFFLINE": "1", "UV_CACHE_DIR": str(root / "uv-cache"), "GITHUB_TOKEN": "ghp_x"}


def test_select_smoke_ranks_the_passing_candidate_first(tmp_path, monkeypatch):
    db = build_study(tmp_path)
    for key, value in offline_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    with Store(db) as store:
        plain = select_candidates(store, SelectOptions(out_dir=tmp_path / "plain", n=2))
        assert [c.full_name for c in plain.picked] == ["lab/pinned", "lab/fits"]
        smoke = SmokeOptions(out_dir=tmp_path / "smoke", timeout=30)
        result = select_candidates(store, SelectOptions(out_dir=tmp_path / "m", n=2, smoke=smoke))
        stored = {r["full_name"]: r["outcome"] for r in store.smoke_runs()}
        resumed = select_candidates(store, SelectOptions(out_dir=tmp_path / "m", n=2, smoke=smoke))
        assert resumed.smoked == () and [c.full_name for c in resumed.picked][0] == "lab/fits"
        assert len(resumed.smoke_rows) == 2
        again = SelectOptions(out_dir=tmp_path / "again", n=1, smoke=smoke, smoke_again=True)
        assert len(select_candidates(store, again).smoked) == 2
    assert [r.outcome for r in result.smoked] == ["install", "ok"]  # tried in rank order
    assert [c.full_name for c in result.picked] == ["lab/fits", "lab/pinned"]
    assert stored == {"lab/fits": "ok", "lab/pinned": "install"}
    fits = yaml.safe_load((tmp_path / "m" / "lab__fits.yaml").read_text())
    assert fits["runnable"] is True and fits["smoke"]["outcome"] == "ok"
    assert Path(fits["run"]["python"]).exists()
    assert fits["repo"]["commit_date"] == "2021-02-01T00:00:00+00:00"
    pinned = yaml.safe_load((tmp_path / "m" / "lab__pinned.yaml").read_text())
    assert pinned["runnable"] is False and "python" not in pinned["run"]
    assert pinned["smoke"]["evidence"]["path"] == "install.log"
    rows = list(csv.DictReader((tmp_path / "m" / "selection.csv").open()))
    assert [(r["full_name"], r["smoke"]) for r in rows] == [
        ("lab/fits", "ok"), ("lab/pinned", "install")
    ]  # fmt: skip


def test_cli_select_smoke_report_smoke_and_run_the_folder(tmp_path):
    db = build_study(tmp_path)
    runner = CliRunner()
    env = {**offline_env(tmp_path), "MINER_STUDY_DIR": str(tmp_path)}
    selected = runner.invoke(app, ["select", "--n", "2", "--smoke", "--smoke-timeout", "30"],
                             env=env)  # fmt: skip
    assert selected.exit_code == 0, selected.output
    assert "smoke  lab/fits  ok" in selected.stderr
    assert "| ok |" in selected.stdout and "| install |" in selected.stdout

    report = runner.invoke(app, ["report", "smoke", "--format", "csv"], env=env)
    assert report.exit_code == 0, report.output
    assert "| ok | trained at least one step or printed a metric | 1 | 50.0 |" in report.stdout
    assert "train.log:" in report.stdout and "install.log:" in report.stdout
    assert (tmp_path / "reports" / "smoke_outcomes.csv").is_file()

    again = runner.invoke(app, ["smoke", "lab/fits", "--smoke-timeout", "30"], env=env)
    assert again.exit_code == 0, again.output
    assert "smoke  lab/fits  ok" in again.stderr and "lab/pinned" not in again.stderr
    unknown = runner.invoke(app, ["smoke", "lab/nothing"], env=env)
    assert (
        unknown.exit_code == 1 and "cannot smoke-test lab/nothing (not audited)" in unknown.stderr
    )

    folder = tmp_path / "data" / "runs" / "manifests"
    ran = runner.invoke(
        app, ["experiment", "run", str(folder), "--threads", "1", "--runs", "1"], env=env
    )
    assert ran.exit_code == 0, ran.output
    assert "lab/pinned: skipped, its smoke run failed" in ran.stderr
    records = list(csv.DictReader((tmp_path / "data" / "runs" / "lab__fits" / "runs.csv").open()))
    assert [r["status"] for r in records] == ["ok"]
    assert not (tmp_path / "data" / "runs" / "lab__pinned").exists()
    with Store(db) as store:
        assert len(store.smoke_runs()) == 2


def test_report_smoke_without_runs_is_an_error(tmp_path):
    build_study(tmp_path)
    result = CliRunner().invoke(app, ["report", "smoke"], env={"MINER_STUDY_DIR": str(tmp_path)})
    assert result.exit_code == 1 and "no smoke runs" in result.stderr


def test_cli_smoke_named_projects_and_samples_without_manifests(tmp_path):
    db = build_study(tmp_path)
    runner = CliRunner()
    env = {**offline_env(tmp_path), "MINER_STUDY_DIR": str(tmp_path)}
    named = runner.invoke(app, ["smoke", "lab/pinned", "lab/fits", "--smoke-timeout", "30"],
                          env=env)  # fmt: skip
    assert named.exit_code == 0, named.output
    lines = [line for line in named.stderr.splitlines() if line.startswith("smoke  ")]
    starts = [line.split()[1] for line in lines if line.endswith("start")]
    assert starts == ["lab/pinned", "lab/fits"]  # the order given, no manifest written
    assert "smoke  lab/fits  S1  environment built" in named.stderr
    assert "smoke  lab/pinned  install  S0" in named.stderr
    assert "| S1 | environment built | 1 | 50.0 |" in named.stdout
    assert not (tmp_path / "data" / "runs" / "manifests").exists()

    draws = set()
    for seed in range(6):
        sampled = runner.invoke(app, ["smoke", "--sample", "1", "--seed", str(seed),
                                      "--smoke-timeout", "30"], env=env)  # fmt: skip
        assert sampled.exit_code == 0, sampled.output
        draws.add(next(ln.split()[1] for ln in sampled.stderr.splitlines() if ln.endswith("start")))
    assert draws == {"lab/pinned", "lab/fits"}
    with Store(db) as store:
        assert len(store.smoke_attempts()) == 8 and len(store.smoke_runs()) == 2


def test_select_smoke_tries_at_most_max_candidates(tmp_path, monkeypatch):
    db = build_study(tmp_path)
    for key, value in offline_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    smoking = SmokeOptions(out_dir=tmp_path / "smoke", timeout=30)
    with Store(db) as store:
        options = SelectOptions(out_dir=tmp_path / "m", n=2, smoke=smoking, max_candidates=1)
        result = select_candidates(store, options)
        assert [r.full_name for r in result.smoked] == ["lab/pinned"]  # the best ranked only


def test_cli_smoke_runs_candidates_side_by_side_and_stores_each(tmp_path):
    from miner.select.smoke_batch import side_by_side

    db = build_study(tmp_path)
    env = {**offline_env(tmp_path), "MINER_STUDY_DIR": str(tmp_path)}
    result = CliRunner().invoke(app, ["smoke", "lab/pinned", "lab/fits", "--jobs", "2",
                                      "--smoke-timeout", "30"], env=env)  # fmt: skip
    assert result.exit_code == 0, result.output
    starts = [ln.split()[1] for ln in result.stderr.splitlines() if ln.endswith("start")]
    assert sorted(starts) == ["lab/fits", "lab/pinned"]
    assert "| S1 | environment built | 1 | 50.0 |" in result.stdout
    assert f"package cache shared by every candidate: {tmp_path / 'uv-cache'} (" in result.stderr
    with Store(db) as store:
        outcomes = {row["full_name"]: row["outcome"] for row in store.smoke_runs()}
    assert outcomes == {"lab/fits": "ok", "lab/pinned": "install"}
    # Memory caps the jobs: no more at once than can each take the training step's limit.
    assert side_by_side(8, 1 << 60, 5) == 1
    assert side_by_side(8, 1, 5) == 5 and side_by_side(1, 1, 5) == 1
