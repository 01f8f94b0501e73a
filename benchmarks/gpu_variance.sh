#!/usr/bin/env bash
# The PyTorch example sized for a GPU (`--example cnn-gpu`) under the four noise settings on one
# CUDA GPU, then `miner experiment analyze`; prints the device facts, the tables and the findings.
#
# Usage, from the repository root on a machine with one NVIDIA GPU:
#   benchmarks/gpu_variance.sh OUT [RUNS] [SECONDS]
# OUT receives facts.txt, the pre-flight log, runs.tar.gz (every run's records and outputs, no
# weights files) and analysis.tar.gz. RUNS per setting (default 8); SECONDS bounds the runs
# (default 300): the runner goes round-robin over the settings, so a bound that cuts it short
# leaves every setting with about as many runs (it stops as on Ctrl-C), and analysis reads what
# finished.
# The interpreter ($PYTHON, default python3) needs PyTorch with CUDA and miner's experiment
# dependencies (typer, rich, PyYAML, numpy, pandas, scipy, scikit-learn, statsmodels,
# matplotlib, psutil, packaging, jinja2); miner itself is taken from this checkout.
set -uo pipefail
out=${1:?usage: benchmarks/gpu_variance.sh OUT [RUNS] [SECONDS]}
runs=${2:-8}
seconds=${3:-300}
py=${PYTHON:-python3}
device=${DEVICE:-cuda}  # DEVICE=cpu tries the script on a machine without a GPU
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$out"
size=(--lr 0.01 --side 32 --width 64 --pixel-embedding 16)

{
    date -u +%FT%TZ
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
    "$py" -c 'import sys, torch
print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda,
      "cudnn", torch.backends.cudnn.version())
if torch.cuda.is_available():
    print(torch.cuda.get_device_name(0), "capability", torch.cuda.get_device_capability(0))'
    nproc
} 2>&1 | tee "$out/facts.txt"

# Pre-flight, two epochs each way, through the runner's own start-up hook: an operation with no
# deterministic CUDA kernel fails here in seconds instead of in every control run.
for deterministic in 1 0; do
    echo "== pre-flight, deterministic=$deterministic"
    MINER_DETERMINISTIC=$deterministic MINER_DETERMINISM_REPORT="$out/preflight" \
        CUBLAS_WORKSPACE_CONFIG=:4096:8 PYTHONPATH="$PWD/miner/experiment/hooks:$PYTHONPATH" \
        "$py" miner/examples/train_cnn.py --epochs 2 "${size[@]}" --device "$device" --seed 1 \
        || echo "pre-flight deterministic=$deterministic failed: exit $?"
done 2>&1 | tee "$out/preflight.log"

experiment=${TMPDIR:-/tmp}/gpu-variance/example-cnn-gpu
rm -rf "$experiment"
timeout -s INT "$seconds" "$py" -m miner experiment run --example cnn-gpu --device "$device" \
    --setting control,algo,impl,algo+impl --threads 1 --runs "$runs" --out "$experiment" \
    2>&1 | tee "$out/run.log"
"$py" -m miner experiment analyze "$experiment" 2>&1 | tee "$out/analyze.log"
tar -czf "$out/runs.tar.gz" -C "$(dirname "$experiment")" --exclude 'weights.pt' \
    --exclude analysis "$(basename "$experiment")"
tar -czf "$out/analysis.tar.gz" -C "$experiment" analysis
ls -l "$out"
