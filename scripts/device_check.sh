#!/usr/bin/env bash
# The prepared accelerator check (scripts/device_check.py): step times of every model, the
# stacked 15-run grid against 15 sequential runs, how many stacked runs fit, and one paper
# probe, in at most 8 minutes, into one JSON (default build/device_check.json).
#   scripts/device_check.sh                                # on a GPU, paper sizes
#   scripts/device_check.sh --device cpu --quick           # the same path on a CPU, tiny sizes
set -euo pipefail
cd "$(dirname "$0")/.."
python -c "import hf_induction" 2>/dev/null || pip install -q --no-deps -e .
exec python scripts/device_check.py "$@"
