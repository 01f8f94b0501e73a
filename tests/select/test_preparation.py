"""The README's data-preparation steps: read above the training command, run only when the
training step stopped for want of data, then training again."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from conftest import write_checkout

from miner.codebook import Evidence
from miner.select.preparation import preparation_steps
from miner.select.smoke import smoke
from miner.select.smoke_records import SmokeOptions, SmokeTarget

README = """# A project

## Data

```bash
unzip data/raw.zip -d data
tar -xzf extras.tar.gz -C data
python scripts/prepare_data.py --out data/ready
python scripts/prepare_data.py --src /path/to/your/data
bash tools/download_data.sh
wget http://example.org/big.zip
python train.py --epochs 1
```

## Afterwards

```bash
python tools/preprocess_eval.py
```
"""


def _checkout(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    return write_checkout(tmp_path / "repo", files)


def test_steps_above_the_training_command_that_prepare_shipped_data(tmp_path):
    root = _checkout(tmp_path, {
        "README.md": README, "data/raw.zip": b"PK", "scripts/prepare_data.py": "",
        "tools/download_data.sh": "", "tools/preprocess_eval.py": "", "train.py": "",
    })  # fmt: skip
    command = Evidence("README.md", 12, "python train.py --epochs 1", "readme_command")
    steps = preparation_steps(root, command)
    assert [s.argv for s in steps] == [
        ("unzip", "-n", "data/raw.zip", "-d", "data"),  # never stops to ask about overwriting
        ("{python}", "scripts/prepare_data.py", "--out", "data/ready"),
        ("bash", "tools/download_data.sh"),
    ]  # the archive the checkout lacks, the placeholder, the URL and what follows are left out
    assert steps[0].evidence.line == 6 and steps[0].evidence.rule == "readme_prepare"
    assert steps[1].note() == "README.md:8: python scripts/prepare_data.py --out data/ready"


def test_without_a_readme_command_the_whole_root_readme_is_read(tmp_path):
    root = _checkout(tmp_path, {"README.md": README, "tools/preprocess_eval.py": ""})
    steps = preparation_steps(root, Evidence("train.py", 1, "def main():", "training_loop"))
    assert [s.argv for s in steps] == [("{python}", "tools/preprocess_eval.py")]


def test_the_training_script_run_in_a_preparation_mode_is_a_step(tmp_path):
    readme = ("2. in this folder type `python main.py --mode=generate --repeat=1`\n"
              "3. type `python main.py --mode=train`\n")  # fmt: skip
    root = _checkout(tmp_path, {"README.md": readme, "main.py": ""})
    command = Evidence("README.md", 2, "3. type `python main.py --mode=train`", "readme_command")
    steps = preparation_steps(root, command)
    assert [s.argv for s in steps] == [("{python}", "main.py", "--mode=generate", "--repeat=1")]


def test_a_training_script_is_no_preparation_step(tmp_path):
    root = _checkout(tmp_path, {"README.md": "```\npython train.py\n./run.sh\n```\n",
                                "train.py": "", "run.sh": ""})  # fmt: skip
    assert preparation_steps(root, None) == ()


TRAIN = """import pathlib
rows = pathlib.Path("data/ready/rows.csv").read_text().split()
print(f"epoch 1 loss {1.0 / len(rows):.3f}")
"""
PREPARE = """import pathlib, sys
out = pathlib.Path(sys.argv[sys.argv.index("--out") + 1])
out.mkdir(parents=True, exist_ok=True)
(out / "rows.csv").write_text(pathlib.Path("data/raw.txt").read_text())
"""


def _smoke(tmp_path: Path, checkout: Path) -> object:
    target = SmokeTarget("lab/prepared", 1, "0" * 40, checkout, (sys.executable, "train.py"))
    env = {**os.environ, "UV_OFFLINE": "1", "UV_CACHE_DIR": str(tmp_path / "uv")}
    options = SmokeOptions(out_dir=tmp_path / "smoke", timeout=60, env=env)
    return smoke(target, options)


def test_a_run_that_wants_its_prepared_data_prepares_it_and_trains(tmp_path):
    readme = "```\npython prepare_data.py --out data/ready\npython train.py\n```\n"
    checkout = _checkout(tmp_path, {
        "README.md": readme, "train.py": TRAIN, "prepare_data.py": PREPARE,
        "data/raw.txt": "1\n2\n3\n4\n",
    })  # fmt: skip
    result = _smoke(tmp_path, checkout)
    assert result.outcome == "ok" and "epoch 1 loss 0.250" in result.evidence.text, result
    assert any(n.startswith("data preparation (exit 0,") and "prepare_data.py --out" in n
               for n in result.notes)  # fmt: skip
    assert not (checkout / "data" / "ready").exists()  # the clone is untouched


def test_a_run_that_finds_its_data_runs_no_preparation(tmp_path):
    readme = "```\npython prepare_data.py --out data/ready\npython train.py\n```\n"
    checkout = _checkout(tmp_path, {
        "README.md": readme, "train.py": TRAIN, "prepare_data.py": "raise SystemExit(3)\n",
        "data/ready/rows.csv": "1\n2\n",
    })  # fmt: skip
    result = _smoke(tmp_path, checkout)
    assert result.outcome == "ok" and not any("data preparation" in n for n in result.notes)


def test_a_run_that_ends_without_a_step_prepares_what_it_trains_on(tmp_path):
    readme = "```\npython main.py --mode=generate\npython main.py --mode=train\n```\n"
    main = """import json, pathlib, sys
tasks = pathlib.Path("train_package")
if "--mode=generate" in sys.argv:
    tasks.mkdir(); (tasks / "1.json").write_text(json.dumps({"steps": 2}))
else:
    for task in sorted(tasks.glob("*.json")) if tasks.is_dir() else ():
        print(f"step 1 loss {json.loads(task.read_text())['steps'] / 10:.2f}")
    print("All the tasks are over")
"""
    checkout = _checkout(tmp_path, {"README.md": readme, "main.py": main})
    target = SmokeTarget("lab/generated", 1, "0" * 40, checkout,
                         (sys.executable, "main.py", "--mode=train"),
                         entry_evidence=Evidence("README.md", 3, "python main.py --mode=train",
                                                 "readme_command"))  # fmt: skip
    env = {**os.environ, "UV_OFFLINE": "1", "UV_CACHE_DIR": str(tmp_path / "uv")}
    result = smoke(target, SmokeOptions(out_dir=tmp_path / "smoke", timeout=60, env=env))
    assert result.outcome == "ok" and "step 1 loss 0.20" in result.evidence.text, result
    assert any("main.py --mode=generate" in n for n in result.notes)


def test_a_script_the_readme_names_alone_to_run_is_a_step(tmp_path):
    readme = "* STEP 3. Run `prepare_data.py`.\n* STEP 4. Run `train.py`.\n"
    root = _checkout(tmp_path, {"README.md": readme, "prepare_data.py": "", "train.py": ""})
    steps = preparation_steps(root, None)
    assert [s.argv for s in steps] == [("{python}", "prepare_data.py")]


LJ_TRAIN = """import pathlib
root = pathlib.Path("data/LJSpeech-1.1")
clips = [row.split("|")[0] for row in (root / "metadata.csv").read_text().splitlines()]
frames = [int((root / "wavs" / f"{clip}.frames").read_text()) for clip in clips]
print(f"step 1 loss {22050 / min(frames):.3f}")
"""
LJ_PREPARE = """import pathlib, wave
root = pathlib.Path("data/LJSpeech-1.1")
for row in (root / "metadata.csv").read_text().splitlines():
    clip = row.split("|")[0]
    with wave.open(str(root / "wavs" / f"{clip}.wav")) as audio:
        (root / "wavs" / f"{clip}.frames").write_text(str(audio.getnframes()))
"""


def test_the_readme_s_preparation_runs_again_on_stand_in_data(tmp_path):
    readme = "Run `prepare_data.py`, then:\n```\npython train.py\n```\n"
    checkout = _checkout(tmp_path, {"README.md": readme, "train.py": LJ_TRAIN,
                                    "prepare_data.py": LJ_PREPARE})  # fmt: skip
    result = _smoke(tmp_path, checkout)
    assert result.outcome == "ok" and result.evidence.text.startswith("step 1 loss"), result
    assert any(n.startswith("stand-in files: 65 written at data/LJSpeech-1.1") for n in
               result.notes), result.notes  # fmt: skip
    assert sum(n.startswith("data preparation (exit 0,") for n in result.notes) == 1
