"""The examples run as a reader runs them, at the small size their ``EXAMPLE_SIZE`` gives
(a few steps: a search that ends without N* is still a whole search)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.helpers import env

# End to end: the examples, run as scripts.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_example(name: str, cwd: Path) -> str:
    # The checkout's package, whatever an installed copy points at.
    done = subprocess.run([sys.executable, str(ROOT / "examples" / name)], cwd=cwd,
                          env={**env(), "EXAMPLE_SIZE": "small", "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_one_cell_search_prints_its_outcome(tmp_path):
    out = run_example("nstar_one_cell.py", tmp_path)
    assert out.startswith("refined: N* "), out
    # A bare loop over the API: no results folder, nothing written where it runs.
    assert not list(tmp_path.iterdir())


def test_a_model_of_ones_own_passes_the_contract_and_trains_through_nstar(tmp_path):
    out = run_example("bring_your_own_model.py", tmp_path)
    assert "model tiny_gru:\n  output shape: ok\n  labels loss: ok" in out, out
    assert "FAILED" not in out, out
    # nstar found the spec by the file's path and searched the cell.
    assert "bring_your_own_model.py:SPEC | refined |" in out, out
    assert (tmp_path / "build" / "bring_your_own" / "protocol.json").exists()
