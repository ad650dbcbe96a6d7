"""A check scores the weights its own grid trained, instead of training its best run again,
and gives the published figures: the OOD check of two published cells, run afresh, with the
retraining path shut."""

import json
from pathlib import Path

import pytest

from hf_induction.runner import best_run
from tests.runner.helpers import run_command

PUBLISHED = Path(__file__).resolve().parents[2] / "results" / "architectures_m2"
FIGURES = ("state_accuracy", "final_state_accuracy", "normalised_state_accuracy",
           "normalised_final_state_accuracy")


def ood_rows(folder):
    rows = [json.loads(line) for path in sorted((folder / "ood").glob("*.jsonl"))
            for line in path.read_text().splitlines() if line.strip()]
    return {(r["config"], r["model"]): r for r in rows}


def test_the_ood_check_scores_its_grids_best_run_without_training_it_again(tmp_path,
                                                                           monkeypatch):
    def no_retraining(*args, **kwargs):
        raise AssertionError("the check trained its best run again")

    monkeypatch.setattr(best_run, "train_model", no_retraining)
    # The Dense-SSM's grid is stacked on the CPU, the LSTM's runs train one by one: both
    # ways of handing weights back.
    out = tmp_path / "ood"
    done = run_command(["nstar", "--dataset", "modadd", "--config", "acot_L5_m2", "--model",
                        "dense_ssm", "lstm", "--ood", "--no-search", "--no-progress",
                        "--threads", "1", "--out", str(out)])
    assert done.returncode == 0, done.stderr
    published, fresh = ood_rows(PUBLISHED), ood_rows(out)
    assert set(fresh) == {("acot_L5_m2", "dense_ssm"), ("acot_L5_m2", "lstm")}
    for key, row in fresh.items():
        then = published[key]
        assert (row["n"], row["lr"], row["seed"]) == (then["n"], then["lr"], then["seed"])
        # The grid's run and its retrained copy differ in the last bits at most; over the
        # 1,024 test words at length 10 that is within a few words.
        for figure in FIGURES:
            assert row[figure] == pytest.approx(then[figure], abs=0.02), (key, figure)
