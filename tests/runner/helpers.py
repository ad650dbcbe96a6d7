"""Small budgets that keep a whole search to seconds on a CPU."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NSTAR = str(ROOT / "scripts" / "nstar.py")
# Z_3, length 4: 81 words, 16 for validation; Dense-SSM learns it in ~100 steps at lr 0.03.
FAST = ["--max-steps", "120", "--eval-every", "20", "--lrs", "0.03", "--seeds", "10,20",
        "--n-start", "2", "--no-progress"]


def env() -> dict:
    e = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", HF_HUB_OFFLINE="1")
    e.pop("CUDA_VISIBLE_DEVICES", None)
    return e


def run_cli(args, env_extra: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, NSTAR, *args], capture_output=True, text=True,
                          env={**env(), **(env_extra or {})}, timeout=600, **kw)
