"""miner select: evidence from fixture checkouts, ranking, diverse picks and runnable manifests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from miner.audit.files import RepoTree
from miner.cli import app
from miner.errors import ConfigError
from miner.experiment.run import run_experiment
from miner.select.evidence import scan_checkout
from miner.select.manifest import load_manifest
from miner.select.selection import SelectOptions, select_candidates
from miner.select.versions import version_specs


def test_scan_finds_entry_point_seeds_threads_and_pins(study):
    _, root = study
    scan = scan_checkout(root / "repos" / "alpha__torch-mnist")
    entry = scan.entry_points[0]
    assert (entry.script, entry.args, entry.kind) == (
        "train.py",
        ("--epochs", "2"),
        "readme_command",
    )
    assert entry.evidence[0].path == "README.md" and entry.evidence[0].line == 6
    assert {e.rule for e in scan.seed_sites} == {"python", "pytorch"}
    assert scan.seed_argument is not None and scan.seed_argument.line == 10
    assert [(e.path, e.line) for e in scan.thread_hooks] == [("train.py", 18)]
    torch = [v for v in scan.versions if v.framework == "pytorch"]
    assert [(v.spec, v.source, v.evidence.line) for v in torch] == [
        ("==1.4.0", "requirements_file", 2)
    ]
    assert scan.cpu_fallback and not scan.gpu_only


def test_version_specs_from_every_kind_of_file(tmp_path, make_checkout):
    root = make_checkout(
        tmp_path,
        {
            "environment.yml": "dependencies:\n  - tensorflow-gpu=1.14.0\n"
            "  - pip:\n    - keras==2.2.4\n",
            "setup.py": "from setuptools import setup\nsetup(install_requires=['jax>=0.2.0'])\n",
            "pyproject.toml": '[project]\nname = "x"\ndependencies = ["mxnet~=1.6"]\n',
            "docker/Dockerfile": "FROM pytorch/pytorch:1.7.1-cuda11.0-cudnn8-runtime\n",
            "README.md": "Tested with PyTorch >= 1.7 and TensorFlow 2.4.\n",
        },
    )
    found = {(v.package, v.spec, v.source) for v in version_specs(RepoTree(root))}
    assert ("tensorflow-gpu", "=1.14.0", "conda_env") in found
    assert ("keras", "==2.2.4", "conda_env") in found
    assert ("jax", ">=0.2.0", "setup") in found
    assert ("mxnet", "~=1.6", "setup") in found
    assert ("pytorch", "==1.7.1", "dockerfile") in found
    assert ("pytorch", ">=1.7", "readme") in found and ("tensorflow", "==2.4", "readme") in found


def test_symlink_out_of_checkout_is_not_read(tmp_path, make_checkout):
    secret = tmp_path / "secret.txt"
    secret.write_text("torch==9.9.9\n")
    root = make_checkout(tmp_path / "repo", {"train.py": "print('acc', 1)\n"})
    (root / "requirements.txt").symlink_to(secret)
    assert not [v for v in scan_checkout(root).versions if v.spec == "==9.9.9"]


def test_scripts_the_readme_names_come_first_in_its_order(tmp_path, make_checkout):
    loop = (
        "import torch\n\nmodel = torch.nn.Linear(2, 1)\n"
        "opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "for step in range(10):\n    loss = model(torch.ones(1, 2)).sum()\n    loss.backward()\n"
        "    opt.step()\n"
    )
    readme = "# WGAN-GP\n\n- [x] gan_toy.py : Toy datasets\n- [x] gan_mnist.py : MNIST\n"
    files = {"README.md": readme, **{f"gan_{n}.py": loop for n in ("cifar10", "mnist", "toy")}}
    root = make_checkout(tmp_path / "repo", files)
    scripts = [e.script for e in scan_checkout(root).entry_points]
    assert scripts == ["gan_toy.py", "gan_mnist.py", "gan_cifar10.py"]


def test_ranking_requirements_and_exclusions(study):
    store, root = study
    result = select_candidates(store, SelectOptions(out_dir=root / "m", n=3))
    assert [c.full_name for c in result.picked] == [
        "alpha/torch-mnist", "zeta/torch-cifar", "beta/tf-text"
    ]  # fmt: skip
    skipped = {s.full_name: s.reason for s in result.skipped}
    assert skipped["delta/tutorials"] == "excluded: educational"
    assert skipped["eps/no-train"] == "lacks training_code, entry_point"
    gpu = next(c for c in result.assessed if c.full_name == "gamma/gpu-only")
    assert gpu.cpu["level"] == "needs_edits" and not gpu.met("cpu")
    strict = select_candidates(
        store, SelectOptions(out_dir=root / "s", n=5, require=("data_available", "seeds"))
    )
    assert "gamma/gpu-only" not in [c.full_name for c in strict.picked]


def test_diversify_prefers_a_new_framework(study):
    store, root = study
    plain = select_candidates(store, SelectOptions(out_dir=root / "a", n=2))
    diverse = select_candidates(
        store, SelectOptions(out_dir=root / "b", n=2, diversify=("framework",))
    )
    assert [c.framework for c in plain.picked] == ["pytorch", "pytorch"]
    assert [c.full_name for c in diverse.picked] == ["alpha/torch-mnist", "beta/tf-text"]


def test_every_met_reason_carries_evidence(study):
    store, root = study
    result = select_candidates(store, SelectOptions(out_dir=root / "m", n=3, fmt="json"))
    for candidate in result.picked:
        for reason in candidate.reasons:
            if reason.met:
                assert reason.evidence, (candidate.full_name, reason.criterion)


def test_manifest_content_and_tf1_snippet(study):
    store, root = study
    result = select_candidates(store, SelectOptions(out_dir=root / "m", n=3))
    beta = yaml.safe_load((root / "m" / "beta__tf-text.yaml").read_text())
    assert beta["repo"]["commit_sha"] == f"{3:040x}"
    assert beta["framework"]["version_spec"] == "tensorflow=1.15.0"
    assert beta["framework"]["version_source"] == "conda_env"
    assert beta["seeds"]["snippet_kind"] == "tensorflow1"
    assert "tf.set_random_seed" in beta["seeds"]["snippet"]
    assert beta["threads"]["hooks"][0]["line"] == 5
    assert any(e["path"] == "download_data.sh" for e in beta["dataset"]["acquisition"])
    assert beta["run"]["command"] == ["{python}", "main.py"]
    assert beta["run"]["seed_args"] == []  # no --seed option to pass the seed through
    assert (root / "m" / "selection.csv").read_text().count("\n") == 4
    assert len(result.manifests) == 3


def test_select_manifest_is_runnable(study):
    store, root = study
    select_candidates(store, SelectOptions(out_dir=root / "m", n=1))
    manifest = load_manifest(root / "m" / "alpha__torch-mnist.yaml")
    events = list(run_experiment(manifest, root / "runs", (1,), ("fixed",), 2))
    records = [e.record for e in events]
    assert [r.status for r in records] == ["ok", "ok"]
    assert records[0].metrics["accuracy"] == records[1].metrics["accuracy"]
    assert records[0].command.endswith("train.py --epochs 2 --seed 0")
    assert list(records[0].weights) == ["model.pt"]
    assert records[0].weights_sha256 == records[1].weights_sha256
    assert (Path(records[0].run_dir) / "outputs" / "model.pt").is_file()
    assert not (root / "repos" / "alpha__torch-mnist" / "model.pt").exists()  # checkout untouched


def test_cli_select(study):
    store, root = study
    store.close()
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["select", "--db", str(root / "miner.db"), "--n", "2", "--diversify", "framework,domain",
         "--format", "json", "--out", str(root / "cli")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "alpha/torch-mnist" in result.stdout and "beta/tf-text" in result.stdout
    assert (root / "cli" / "alpha__torch-mnist.json").is_file()
    bad = runner.invoke(app, ["select", "--db", str(root / "miner.db"), "--require", "magic"])
    assert bad.exit_code == 1 and "unknown magic" in bad.output


def test_bad_options_are_config_errors(study):
    store, root = study
    with pytest.raises(ConfigError):
        select_candidates(store, SelectOptions(out_dir=root, n=0))
    with pytest.raises(ConfigError):
        select_candidates(store, SelectOptions(out_dir=root, fmt="xml"))


def test_relative_clone_paths_resolve_against_the_store_not_the_cwd(study, monkeypatch):
    store, root = study
    # `miner clone` stores checkouts under the store's folder as relative paths.
    store.conn.execute("UPDATE clones SET path = 'repos/' || replace(full_name, '/', '__')")
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = select_candidates(store, SelectOptions(out_dir=root / "m", n=3))
    assert [c.full_name for c in result.picked][:1] == ["alpha/torch-mnist"]
    assert not [s for s in result.skipped if s.reason.startswith("checkout missing")]
    assert result.picked[0].checkout == str(root / "repos" / "alpha__torch-mnist")
