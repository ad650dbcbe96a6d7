"""--report-to: the validation curve of every run reaches TensorBoard, trackio and wandb,
offline, and is read back from each one's own files."""

import importlib.util
import json
import sqlite3
import struct
import zlib
from pathlib import Path

import pytest

from tests.runner.helpers import FAST, run_cli

# End to end: searches that write and read back each tracker's own files.
pytestmark = pytest.mark.slow

# wandb is a dev extra: where it is missing, the other trackers are still tested.
TRACKERS = ["tensorboard", "trackio", *(["wandb"] if importlib.util.find_spec("wandb") else [])]


@pytest.fixture(scope="module")
def tracked(tmp_path_factory):
    pytest.importorskip("tensorboard")
    pytest.importorskip("trackio")
    root = tmp_path_factory.mktemp("tracked")
    out = root / "tracked-results"
    with pytest.MonkeyPatch.context() as env:
        # wandb as a user without a login or a mode meets it: it must run offline, with no
        # prompt, and keep its own state out of the home folder.
        env.delenv("WANDB_MODE", raising=False)
        env.delenv("WANDB_API_KEY", raising=False)
        proc = run_cli(["--dataset", "modadd", "--config", "acot_L4_m3", "--model", "dense_ssm",
                        *FAST, "--out", str(out), "--report-to", *TRACKERS],
                       env_extra={"TRACKIO_DIR": str(root / "trackio"),
                                  **{f"WANDB_{d}_DIR": str(root / f"wandb-{d.lower()}")
                                     for d in ("CONFIG", "CACHE", "DATA")}})
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


def wandb_records(path: Path):
    """The records of an offline run's ``.wandb`` file, decoded by wandb's own protobuf
    classes. wandb 0.31 ships no reader for the file (its Python one went with the legacy
    backend): it is a LevelDB log, a 7-byte ":W&B" header, then 32 KiB blocks of chunks, each
    a crc32 (of its type byte and data), a length, a type (whole, first, middle, last)."""
    from wandb.proto.wandb_internal_pb2 import Record

    data, block, head = path.read_bytes(), 32 * 1024, 7
    assert data[:4] == b":W&B", data[:4]
    pos, pending = head, b""
    while pos + head <= len(data):
        if block - pos % block < head:  # a block's tail too short for a chunk is padding
            pos += block - pos % block
            continue
        crc, length, kind = struct.unpack("<IHB", data[pos:pos + head])
        chunk = data[pos + head:pos + head + length]
        pos += head + length
        if kind == 0:  # zeroed space wandb preallocated and has not written
            continue
        assert crc == zlib.crc32(chunk, zlib.crc32(bytes([kind]))), f"bad chunk at {pos}"
        pending += chunk
        if kind in (1, 4):
            record = Record()
            record.ParseFromString(pending)
            pending = b""
            yield record


def test_wandb_logs_every_runs_curve_offline_under_the_logging_dir(tracked):
    pytest.importorskip("wandb")
    out, _, journal = tracked
    (run_dir,) = (out / "runs" / "wandb").glob("offline-run-*")
    # The results folder is pushed as it is: no link to a folder (wandb's "latest-run"),
    # which would push the run twice.
    assert not [p for p in (out / "runs").rglob("*") if p.is_symlink() and p.is_dir()]
    (log,) = run_dir.glob("run-*.wandb")
    records = {}
    for record in wandb_records(log):
        records.setdefault(record.WhichOneof("record_type"), []).append(record)
    (run,) = [r.run for r in records["run"]]
    assert (run.display_name, run.project) == ("dense_ssm/modadd/acot_L4_m3", out.name)
    items = [r.history.item for r in records["history"]]
    # Every key is one logged name: a "." read as nesting would split "lr0.03" in two.
    assert not [i.nested_key for row in items for i in row if len(i.nested_key) > 1]
    rows = [{i.key or i.nested_key[0]: json.loads(i.value_json) for i in row} for row in items]
    for run in journal:
        prefix = f"n{run['n']}/lr{run['lr']:g}-seed{run['seed']}"
        curve = [(r[f"{prefix}/step"], r[f"{prefix}/val_loss"]) for r in rows
                 if f"{prefix}/val_loss" in r]
        # Each curve on its own axis: wandb's one step counter would have dropped every
        # curve's rows after the first, as they start again at step 20.
        assert [step for step, _ in curve] == list(range(20, run["steps"] + 1, 20))
        assert curve[-1][1] == pytest.approx(run["final_val_loss"], rel=1e-6)
        assert min(v for _, v in curve) == pytest.approx(run["best_val_loss"], rel=1e-6)
    assert [r["probe/n"] for r in rows if "probe/n" in r] == list(
        dict.fromkeys(r["n"] for r in journal))
    axes = {(r.metric.glob_name, r.metric.step_metric) for r in records["metric"]}
    assert ("probe/*", "probe/n") in axes


@pytest.mark.parametrize("mode", ["bogus", "", "ONLINE"])
def test_a_mode_wandb_does_not_know_is_one_line_before_any_compute(mode, tmp_path, monkeypatch):
    pytest.importorskip("wandb")
    monkeypatch.setenv("WANDB_MODE", mode)
    out = tmp_path / "results"
    proc = run_cli(["--dataset", "modadd", "--config", "acot_L4_m3", "--model", "dense_ssm",
                    *FAST, "--out", str(out), "--report-to", "wandb"])
    err = proc.stderr.strip()
    assert proc.returncode == 2 and len(err.splitlines()) == 1, err
    assert f"WANDB_MODE={mode!r} is not a wandb mode; allowed: online, offline" in err
    assert not out.exists()
