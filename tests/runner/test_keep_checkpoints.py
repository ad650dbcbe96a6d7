"""``nstar --lengthgen --keep-checkpoints``: the check's best run kept in the results folder,
loadable, the model the check scored; kept again by a rerun where it is missing, with the
row unchanged; pushed with the folder; no part of the protocol."""

import json
import shutil

import pytest

from hf_induction.results import ResultsFolder
from hf_induction.results.jsonl import clean
from hf_induction.results.rows import LengthGenRow
from hf_induction.tasks import generate, parse
from tests.runner.helpers import run_cli

CELL = ["--dataset", "copy", "--config", "UF_L3_V9", "--model", "rope", "--max-steps", "20",
        "--eval-every", "10", "--lrs", "0.01", "--seeds", "1", "--no-progress"]
CHECK = ["--lengthgen", "32", "--no-search", "--keep-checkpoints"]
NAME = "rope-UF_L3_V9-n32"


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    out = tmp_path_factory.mktemp("keep") / "results"
    proc = run_cli([*CELL, *CHECK, "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    return out


def test_the_best_run_is_kept_and_is_the_model_the_check_scored(kept):
    from transformers import AutoModelForCausalLM

    from hf_induction.runner.best_run import predict

    path = kept / "checkpoints" / NAME
    (row,) = ResultsFolder(kept).read(LengthGenRow)
    record = json.loads((path / "trained_on.json").read_text())
    assert record == {"model": "rope", "dataset": "copy", "config": "UF_L3_V9", "n": 32,
                      "lr": row.lr, "seed": row.seed, "steps": row.steps,
                      "lengthgen": row.key, "val_loss": row.val_loss}
    assert (path / "tokenizer.json").is_file()
    assert [p.name for p in (kept / "checkpoints").iterdir()] == [NAME]  # no temporary left
    model = AutoModelForCausalLM.from_pretrained(path, trust_remote_code=True)
    cell = parse("copy", "UF_L3_V9")
    test = generate(cell, "test", None, 0)
    assert cell.metrics(predict(model, test.input_ids, "cpu"), test.labels) == pytest.approx(
        {k: v for k, v in row.table()["test"].items() if k != "lengths"})


def test_a_rerun_keeps_a_missing_checkpoint_and_changes_no_row(kept):
    weights = (kept / "checkpoints" / NAME / "model.safetensors").read_bytes()
    tables = {t: (kept / t / "rank0.jsonl").read_bytes() for t in ("lengthgen", "journal")}
    shutil.rmtree(kept / "checkpoints" / NAME)
    again = run_cli([*CELL, *CHECK, "--out", str(kept)])
    assert again.returncode == 0, again.stderr
    # Retrained to the same weights (deterministic); no row appended, none changed.
    assert (kept / "checkpoints" / NAME / "model.safetensors").read_bytes() == weights
    assert {t: (kept / t / "rank0.jsonl").read_bytes() for t in tables} == tables


def test_the_flag_is_no_part_of_the_protocol(kept):
    from hf_induction.commands.nstar import build_parser, campaign_from_args, parse_args

    parser = build_parser()
    with_flag = campaign_from_args(parse_args(parser, [*CELL, *CHECK, "--out", str(kept)]),
                                   parser)
    without = campaign_from_args(parse_args(parser, [*CELL, "--lengthgen", "32", "--no-search",
                                                     "--out", str(kept)]), parser)
    assert with_flag.launch.keep_checkpoints and not without.launch.keep_checkpoints
    # As stored (lists for tuples): the folder's protocol, and so its hash, either way.
    assert clean(with_flag.protocol()) == clean(without.protocol()) == json.loads(
        (kept / "protocol.json").read_text())


def test_a_push_carries_the_checkpoints_but_not_a_half_written_one(kept):
    from huggingface_hub.utils import filter_repo_objects

    from hf_induction.hub.push import RESULTS_IGNORE

    files = [f"checkpoints/{NAME}/model.safetensors", f"checkpoints/{NAME}/config.json",
             f"checkpoints/.{NAME}.x1.tmp/model.safetensors", "lengthgen/rank0.jsonl"]
    assert list(filter_repo_objects(files, ignore_patterns=RESULTS_IGNORE)) == [
        files[0], files[1], files[3]]


def test_keep_checkpoints_without_a_check_is_one_line(tmp_path):
    proc = run_cli([*CELL, "--keep-checkpoints", "--out", str(tmp_path / "x")])
    assert proc.returncode == 2 and "add --lengthgen" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "x").exists()


def test_a_crashed_write_leaves_no_checkpoint(tmp_path, monkeypatch):
    from hf_induction.models.build import build_model
    from hf_induction.runner import checkpoints

    cell = parse("copy", "UF_L3_V9")
    model = build_model("rope", cell.vocab, preset="tiny")

    def crash(self, *args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(type(model), "save_pretrained", crash)
    with pytest.raises(OSError, match="disk full"):
        checkpoints.keep_checkpoint(model, cell, tmp_path / "checkpoints" / NAME, {})
    assert list((tmp_path / "checkpoints").iterdir()) == []
    monkeypatch.undo()
    path = checkpoints.keep_checkpoint(model, cell, tmp_path / "checkpoints" / NAME, {"n": 1})
    assert json.loads((path / "config.json").read_text())["vocab_size"] == cell.vocab.size
