"""--report-to: the validation curve of every run reaches TensorBoard and trackio, offline."""

import json
import sqlite3

import pytest

from tests.runner.helpers import FAST, run_cli


@pytest.fixture(scope="module")
def tracked(tmp_path_factory):
    pytest.importorskip("tensorboard")
    pytest.importorskip("trackio")
    root = tmp_path_factory.mktemp("tracked")
    out = root / "tracked-results"
    proc = run_cli(["--dataset", "modadd", "--config", "acot_L4_m3", "--model", "dense_ssm",
                    *FAST, "--out", str(out), "--report-to", "tensorboard", "trackio"],
                   env_extra={"TRACKIO_DIR": str(root / "trackio")})
    assert proc.returncode == 0, proc.stderr
    journal = [json.loads(line) for line in (out / "journal" / "rank0.jsonl").read_text()
               .splitlines()]
    return out, root / "trackio", journal


def test_tensorboard_holds_every_runs_curve_and_each_probe(tracked):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out, _, journal = tracked
    # One TensorBoard run per search, named model/dataset/config.
    events = EventAccumulator(str(out / "runs" / "dense_ssm" / "modadd" / "acot_L4_m3"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    for run in journal:
        prefix = f"n{run['n']}/lr{run['lr']:g}-seed{run['seed']}"
        curve = events.Scalars(f"{prefix}/val_loss")
        # Every evaluation, at its step; the last one is the run's final loss.
        assert [e.step for e in curve] == list(range(20, run["steps"] + 1, 20))
        assert curve[-1].value == pytest.approx(run["final_val_loss"], rel=1e-6)
        assert min(e.value for e in curve) == pytest.approx(run["best_val_loss"], rel=1e-6)
        assert {f"{prefix}/steps", f"{prefix}/success"} <= tags
    probes = events.Scalars("probe/best_val_loss")
    assert [e.step for e in probes] == list(dict.fromkeys(r["n"] for r in journal))


def test_trackio_stores_the_same_curves_locally(tracked):
    out, store, journal = tracked
    db = store / f"{out.name}.db"
    rows = sqlite3.connect(db).execute("select run_name, step, metrics from metrics").fetchall()
    assert {name for name, _, _ in rows} == {"dense_ssm/modadd/acot_L4_m3"}
    logged = {}
    for _, step, metrics in rows:
        for key, value in json.loads(metrics).items():
            logged.setdefault(key, []).append((step, value))
    for run in journal:
        curve = logged[f"n{run['n']}/lr{run['lr']:g}-seed{run['seed']}/val_loss"]
        assert curve[-1] == (run["steps"], pytest.approx(run["final_val_loss"], rel=1e-6))
