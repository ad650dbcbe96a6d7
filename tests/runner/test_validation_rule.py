"""The validation rule in a campaign: the protocol records it (and only off its default, so
every folder made before it keeps its hash), the probes train and validate on the rows the
rule gives, and a folder of one rule refuses a launch of the other."""

import json

import torch

from hf_induction.results.protocol import protocol_hash
from hf_induction.runner.job import SearchJob
from hf_induction.runner.probe import TrainPool
from hf_induction.tasks import DISJOINT, IN_DISTRIBUTION, WordProblemCell

from .helpers import run_cli

TINY = ["--max-steps", "30", "--eval-every", "10", "--lrs", "0.03", "--seeds", "10",
        "--n-start", "2", "--no-progress", "--model", "dense_ssm", "--dataset", "modadd",
        "--config", "acot_L2_m3"]


def rows(ids: torch.Tensor) -> set[tuple[int, ...]]:
    return {tuple(r.tolist()) for r in ids}


def test_the_pool_a_probe_trains_on_follows_the_rule():
    job = SearchJob(WordProblemCell.parse("modadd", "acot_L2_m3"), "dense_ssm")
    # Z_3 at length 2: 9 words; disjoint sets 1 aside, in-distribution validates all 9.
    disjoint, within = TrainPool(job, validation=DISJOINT), TrainPool(job,
                                                                      validation=IN_DISTRIBUTION)
    assert (disjoint.size, within.size) == (8, 9)
    d, w = disjoint(disjoint.size), within(within.size)
    assert not rows(d.train_input_ids) & rows(d.val_input_ids)
    assert len(d.val_input_ids) == 1 and len(w.val_input_ids) == 9
    # The whole pool holds every validation row, so memorising it reaches ε.
    assert rows(w.val_input_ids) == rows(w.train_input_ids)


def test_the_protocol_records_the_rule_off_its_default_only(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert run_cli([*TINY, "--out", str(a)]).returncode == 0
    done = run_cli([*TINY, "--validation", "in-distribution", "--out", str(b)])
    assert done.returncode == 0, done.stderr
    held_a = json.loads((a / "protocol.json").read_text())
    held_b = json.loads((b / "protocol.json").read_text())
    assert "validation" not in held_a["train"]
    assert held_b["train"]["validation"] == IN_DISTRIBUTION
    assert {k: v for k, v in held_b["train"].items() if k != "validation"} == held_a["train"]
    assert protocol_hash(held_a) != protocol_hash(held_b)
    # The search's largest probe is the pool the rule leaves to training.
    journal = [json.loads(line) for f in sorted((b / "journal").iterdir())
               for line in f.read_text().splitlines() if line.strip()]
    assert max(r["n"] for r in journal if "n" in r) <= 9
    assert any(r.get("n") == 9 for r in journal) or any(r.get("success") for r in journal)
    # A folder of one rule refuses the other, in one line, before any compute.
    refused = run_cli([*TINY, "--out", str(a), "--validation", "in-distribution"])
    assert refused.returncode != 0
    assert "another protocol" in refused.stderr
    assert "validation" in refused.stderr


def test_a_bad_rule_is_refused_by_the_flag(tmp_path):
    done = run_cli([*TINY, "--validation", "overlap", "--out", str(tmp_path / "x")])
    assert done.returncode == 2
    assert "invalid choice: 'overlap'" in done.stderr
    assert "disjoint" in done.stderr and "in-distribution" in done.stderr
