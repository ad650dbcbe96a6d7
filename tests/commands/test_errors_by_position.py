"""scripts/errors_by_position.py: one run retrained and scored at every state of the test
length, its per-position accuracies pooling to the printed state accuracy."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "errors_by_position.py"


def test_the_script_scores_every_state_of_the_test_length():
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--dataset", "modadd", "--config", "acot_L3_m2",
         "--model", "dense_ssm", "--n", "6", "--lr", "0.03", "--seed", "10",
         "--max-steps", "20"],
        capture_output=True, text=True, check=True).stdout.splitlines()
    pooled = ast.literal_eval(out[1])
    header, rule, row = out[2:5]
    assert header == "| state | 1 | 2 | 3 | 4 | 5 | 6 |"  # 2L = 6 states at test length
    accuracies = [float(a) for a in row.strip("| ").split(" | ")[1:]]
    assert len(accuracies) == 6 and all(0 <= a <= 1 for a in accuracies)
    # Every test row has all six states, so the positions pool to the state accuracy.
    assert sum(accuracies) / 6 == pytest.approx(pooled["state_accuracy"], abs=2e-3)


def test_a_size_beyond_the_pool_is_one_line():
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--dataset", "modadd", "--config", "acot_L3_m2",
         "--model", "dense_ssm", "--n", "8", "--lr", "0.03", "--seed", "10",
         "--max-steps", "20"], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].endswith("modadd/acot_L3_m2 has 7 training rows")
