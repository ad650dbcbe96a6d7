"""The examples run as a reader runs them, at the small size their ``EXAMPLE_SIZE`` gives
(a few steps: a search that ends without N* is still a whole search)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.helpers import env

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name, says", [
    ("nstar_one_cell.py", "refined: N*"),
    ("bring_your_own_model.py", "tiny_gru: refined: N*"),
])
def test_the_example_runs_its_search_to_the_end(name, says, tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=tmp_path,
                          env={**env(), "EXAMPLE_SIZE": "small"}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert says in done.stdout, done.stdout
    # Run from anywhere, it writes nothing beside itself.
    assert not list(tmp_path.iterdir()) and not (EXAMPLES / "__pycache__").exists()
