"""A cluster's launchers on a machine that has none: `srun` runs its command once, here.

Training scripts written for a SLURM cluster start Python through `srun -p PARTITION
--gres=gpu:8 --ntasks=8 ... python train.py`, and their code asks SLURM who it is
(`SLURM_PROCID`, `SLURM_NTASKS`, `scontrol show hostnames $SLURM_NODELIST`). A smoke run puts
small stand-ins first on the PATH: `srun` drops its own options, describes one task on one node
in the SLURM variables, and runs the command; `scontrol show hostname(s)` names this machine.
Nothing of the project is edited; a machine that has SLURM gets the same stand-ins, since a
smoke run is one bounded process, never a cluster job.
"""

from __future__ import annotations

import re
import socket
import stat
from pathlib import Path

# srun's options that take their value as the next word (`-p dev`, `--gres gpu:8`).
SRUN_VALUE_OPTIONS = (
    "-p -n -N -c -J -w -x -t -o -e -A -q -G -m -D --partition --job-name --ntasks --nodes "
    "--gres --cpus-per-task --ntasks-per-node --time --account --qos --mem --output --error "
    "--quotatype --nodelist --exclude --gpus --gpus-per-node --gpus-per-task --mem-per-cpu "
    "--mem-per-gpu --reservation --distribution --cpu-bind --mpi --chdir --comment"
)
SRUN = f"""#!/bin/sh
# srun outside a SLURM cluster: its options name the cluster's resources; run the command once.
while [ $# -gt 0 ]; do
  case " {SRUN_VALUE_OPTIONS} " in
    *" $1 "*) shift; [ $# -gt 0 ] && shift; continue;;
  esac
  case "$1" in
    --) shift; break;;
    -*) shift;;
    *) break;;
  esac
done
export SLURM_PROCID="${{SLURM_PROCID:-0}}" SLURM_LOCALID="${{SLURM_LOCALID:-0}}"
export SLURM_NTASKS="${{SLURM_NTASKS:-1}}" SLURM_NNODES="${{SLURM_NNODES:-1}}"
export SLURM_NODEID="${{SLURM_NODEID:-0}}" SLURM_NODELIST="${{SLURM_NODELIST:-localhost}}"
export SLURM_JOB_ID="${{SLURM_JOB_ID:-1}}" SLURM_NTASKS_PER_NODE="${{SLURM_NTASKS_PER_NODE:-1}}"
export SLURM_STEP_NODELIST="${{SLURM_STEP_NODELIST:-localhost}}"
exec "$@"
"""
SCONTROL = """#!/bin/sh
# scontrol outside a SLURM cluster: the one node of a smoke run is this machine.
case "$1 $2" in
  "show hostname"|"show hostnames") echo localhost; exit 0;;
esac
echo "scontrol: no SLURM cluster here (a smoke run)" >&2
exit 1
"""
# A distributed launcher inside a project's shell script (`deepspeed --num_gpus 8 train.py ...`,
# `torchrun --nproc_per_node 4 train.py ...`): deepspeed's own launcher refuses to start where
# it finds no GPU. The stand-in runs the script once with the launcher's options dropped, as
# one worker (the variables a launcher sets; deepspeed's `--local_rank=0` too).
LAUNCH_ONE = """#!/bin/sh
# {name} of a smoke run: the script once, as the only worker, on this machine.
port=29500; module=0; local_rank={local_rank}; direct=0
while [ $# -gt 0 ]; do
  case "$1" in
    --master_port=*|--master-port=*) port="${{1#*=}}"; shift;;
    --master_port|--master-port) shift; port="$1"; shift;;
    --module|-m) module=1; shift;;
    --no_local_rank) local_rank=0; shift;;
    --no_python|--no-python) direct=1; shift;;
    --*=*) shift;;
    {value_options}) shift; [ $# -gt 0 ] && shift;;
    -*) shift;;
    *) break;;
  esac
done
[ $# -gt 0 ] || {{ echo "{name}: no script to run (a smoke run's stand-in)" >&2; exit 2; }}
export RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 LOCAL_WORLD_SIZE=1 GROUP_RANK=0 NODE_RANK=0
export MASTER_ADDR=127.0.0.1 MASTER_PORT="$port"
[ "$direct" = 1 ] && exec "$@"
script="$1"; shift
if [ "$module" = 1 ]; then set -- -m "$script" "$@"; else set -- "$script" "$@"; fi
if [ "$local_rank" = 1 ]; then set -- "$@" --local_rank=0; fi
exec python "$@"
"""
DEEPSPEED_VALUES = ("--num_gpus|--num_nodes|--include|-i|--exclude|-e|--master_addr|--hostfile|"
                    "-H|--launcher|--launcher_args|--node_rank|--ssh_port|--bind_core_list|"
                    "--min_elastic_nodes|--max_elastic_nodes|--autotuning")  # fmt: skip
TORCHRUN_VALUES = ("--nproc_per_node|--nproc-per-node|--nnodes|--node_rank|--node-rank|"
                   "--master_addr|--master-addr|--rdzv_backend|--rdzv-backend|--rdzv_endpoint|"
                   "--rdzv-endpoint|--rdzv_id|--rdzv-id|--rdzv_conf|--rdzv-conf|--max_restarts|"
                   "--max-restarts|--monitor_interval|--start_method|--role|--log_dir|"
                   "--log-dir|--redirects|--tee|--local_addr|--local-ranks-filter")  # fmt: skip
LAUNCHERS = {
    "srun": SRUN, "scontrol": SCONTROL,
    "deepspeed": LAUNCH_ONE.format(name="deepspeed", local_rank=1, value_options=DEEPSPEED_VALUES),
    "torchrun": LAUNCH_ONE.format(name="torchrun", local_rank=0, value_options=TORCHRUN_VALUES),
}  # fmt: skip
# nvidia-smi where the CPU shim claims one GPU: scripts that pick an idle GPU before they start
# Python (`nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits` in a loop
# that waits "until a GPU is free") find GPU 0 idle. Only under the claim: a script that asks
# nvidia-smi whether to run on the CPU must hear that there is no GPU.
NVIDIA_SMI = """#!/bin/sh
# nvidia-smi under the smoke run's CPU shim: one idle GPU, 0, which is the CPU.
fields=""; header=1; units=1
for arg in "$@"; do
  case "$arg" in
    --query-gpu=*) fields="${arg#--query-gpu=}";;
    --format=*) case "$arg" in *noheader*) header=0;; esac
                case "$arg" in *nounits*) units=0;; esac;;
    -L|--list-gpus) echo "GPU 0: CPU shim (UUID: GPU-00000000-0000-0000-0000-000000000000)"
                    exit 0;;
  esac
done
if [ -z "$fields" ]; then
  echo "+-----------------------------------------------------------------------------+"
  echo "| NVIDIA-SMI stand-in of a smoke run: GPU 0 is the CPU (the CPU shim)          |"
  echo "|   0  CPU shim        0MiB / 16384MiB     0%   No running processes found     |"
  echo "+-----------------------------------------------------------------------------+"
  exit 0
fi
[ "$header" = 1 ] && echo "$fields" | sed 's/,/, /g'
out=""
for field in $(echo "$fields" | tr ',' ' '); do
  case "$field" in
    index) value=0;;
    name) value="CPU shim";;
    uuid) value="GPU-00000000-0000-0000-0000-000000000000";;
    memory.total|memory.free) value=16384; [ "$units" = 1 ] && value="16384 MiB";;
    memory.used) value=0; [ "$units" = 1 ] && value="0 MiB";;
    utilization.gpu|utilization.memory) value=0; [ "$units" = 1 ] && value="0 %";;
    temperature.gpu) value=30;;
    *) value="[N/A]";;
  esac
  out="${out:+$out, }$value"
done
echo "$out"
"""


def _write_scripts(folder: Path, scripts: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in scripts.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def launcher_folder(work: Path, claim_gpu: bool = False) -> Path:
    """A folder of launcher stand-ins under `work`, to put first on a run's PATH; with
    `claim_gpu`, nvidia-smi's stand-in beside them."""
    folder = _write_scripts(work / "launchers", LAUNCHERS)
    smi = folder / "nvidia-smi"
    if claim_gpu:
        _write_scripts(folder, {"nvidia-smi": NVIDIA_SMI})
    elif smi.exists():
        smi.unlink()
    return folder


# A README command that starts Python through a distributed launcher: the smoke run drops the
# launcher (miner.select.entry) and runs the script once, so it gets what the launcher would
# have given one worker (`init_process_group(init_method="env://")` reads RANK, WORLD_SIZE,
# MASTER_ADDR and MASTER_PORT; `os.environ["LOCAL_RANK"]` is read directly).
DISTRIBUTED_LAUNCHER = re.compile(
    r"(?:^|[\s;&|(])(?:torchrun|deepspeed|accelerate\s+launch|"
    r"python[\d.]*\s+-m\s+torch\.distributed\.(?:launch|run))(?=\s)"
)


def launch_env(command_text: str) -> dict[str, str]:
    """The variables a distributed launcher gives its only worker, when `command_text` (the
    README's command as written) starts through one; empty otherwise."""
    match = DISTRIBUTED_LAUNCHER.search(command_text)
    if match is None:
        return {}
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return {
        "RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "LOCAL_WORLD_SIZE": "1",
        "GROUP_RANK": "0", "NODE_RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
    }  # fmt: skip
