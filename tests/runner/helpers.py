"""Small budgets that keep a whole search to seconds on a CPU, and the command lines run the
way a test can afford: in this process, unless a test is about processes."""

import contextlib
import io
import os
import signal
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


def run_command(argv: list[str]) -> subprocess.CompletedProcess:
    """``hf-induction ARGV`` in this process, answered as a finished subprocess would be.

    A new process re-imports torch and transformers (seconds each); the command's own code is
    the same `main` the scripts and the console entry point call. What a command may leave
    behind in the process (torch's thread count, the SIGTERM handler, ``sys.argv``) is put
    back. A test about launchers, signals, import order or a second process spawns instead.
    """
    import torch

    from hf_induction.commands import main

    out, err = io.StringIO(), io.StringIO()
    threads, handler, argv0 = torch.get_num_threads(), signal.getsignal(signal.SIGTERM), sys.argv
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as e:   # argparse's usage errors
                code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
                if isinstance(e.code, str):
                    print(e.code, file=sys.stderr)
    finally:
        torch.set_num_threads(threads)
        signal.signal(signal.SIGTERM, handler)
        sys.argv = argv0
    return subprocess.CompletedProcess(["hf-induction", *argv], code, out.getvalue(),
                                       err.getvalue())


# scripts/NAME.py -> the command it is a shim for (`hf_induction.commands.COMMANDS`).
SCRIPT_COMMANDS = {"nstar.py": "nstar", "kappa.py": "kappa", "report.py": "report",
                   "build_datasets.py": "build-datasets", "push.py": "push",
                   "leaderboard.py": "leaderboard", "space.py": "space",
                   "estimate_grid.py": "estimate-grid", "heads.py": "heads"}


def run_script(name: str, *args: str, env_extra: dict | None = None
               ) -> subprocess.CompletedProcess:
    """``python scripts/NAME ARGS``: in this process, or spawned where the test sets the
    environment (``HF_ENDPOINT`` and friends are read when a library is imported)."""
    if env_extra:
        return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *args],
                              capture_output=True, text=True, env={**env(), **env_extra},
                              timeout=600)
    return run_command([SCRIPT_COMMANDS[name], *args])


def run_cli(args, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    """``python scripts/nstar.py ARGS``, as `run_script` runs it."""
    return run_script("nstar.py", *args, env_extra=env_extra)
