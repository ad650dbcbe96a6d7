"""`hf-induction heads`: the kept checkpoints of a results folder (and any model folder) read on
their prompt sets, as heads and patching rows equal to the analysis' own numbers; resumable,
read by `datasets`, the report and its figures; bad input is one line. Untrained tiny models
stand in for trained ones: the numbers need not mean anything to be checked."""

import json
import shutil
from dataclasses import fields

import datasets
import numpy as np
import pytest
import torch

from hf_induction.analysis import KINDS, SCORES, checkpoint_sets, head_scores
from hf_induction.analysis.heads import load_checkpoint
from hf_induction.models.build import build_model
from hf_induction.results import HeadsRow, PatchingRow, ResultsFolder, checkpoint_name
from hf_induction.results.render import HEAD_SCORE_COLUMNS
from hf_induction.runner.checkpoints import keep_checkpoint
from hf_induction.tasks import parse
from tests.runner.helpers import run_command

CELL = parse("copy", "UF_L4_V12")
PROMPTS = ["--prompts", "12", "--no-progress"]


def keep(folder_path, name: str, cell=CELL, n: int = 100):
    torch.manual_seed(0)
    model = build_model(name, cell.vocab, preset="tiny")
    path = folder_path / "checkpoints" / checkpoint_name(name, str(cell), n)
    return keep_checkpoint(model, cell, path, {"model": name, "dataset": cell.dataset,
                                               "config": str(cell), "n": n})


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """A results folder keeping a rope, a gpt2_offset and an lstm checkpoint, scored with
    --patch once."""
    out = tmp_path_factory.mktemp("heads") / "results"
    ResultsFolder(out).check_protocol({"train": {"max_steps": 1}})
    for name in ("rope", "gpt2_offset", "lstm"):
        keep(out, name)
    keep(out, "rope", parse("retrieval", "UR_L4_V6"))
    proc = run_command(["heads", str(out), "--patch", *PROMPTS])
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_a_kept_checkpoint_loads_with_its_tokenizer_and_record(scored):
    out, _ = scored
    path = out / "checkpoints" / "rope-UF_L4_V12-n100"
    assert {"config.json", "model.safetensors", "tokenizer.json", "trained_on.json"} <= {
        p.name for p in path.iterdir()}
    assert not list((out / "checkpoints").glob(".*"))  # no temporary folder left
    model = load_checkpoint(path)
    assert model.config.vocab_size == CELL.vocab.size
    from transformers import AutoTokenizer

    assert AutoTokenizer.from_pretrained(path)("a b").input_ids == [CELL.vocab.bos, 0, 1]


def test_rows_are_the_analysis_scores_of_every_set(scored):
    out, proc = scored
    rows = ResultsFolder(out).read(HeadsRow)
    # Two copy checkpoints on UF, UB and repeated; the retrieval one on UR, UL and repeated;
    # 2 layers x 4 heads each. The lstm is left out, in one line.
    configs = {(r.checkpoint, r.config) for r in rows}
    assert configs == {(f"{m}-UF_L4_V12-n100", c) for m in ("rope", "gpt2_offset")
                       for c in ("UF_L4_V12", "UB_L4_V12", "repeated_L4_V12")} | {
        ("rope-UR_L4_V6-n100", c) for c in ("UR_L4_V6", "UL_L4_V6", "repeated_L4_V6")}
    assert len(rows) == len(configs) * 8
    assert "lstm-UF_L4_V12-n100: left out" in proc.stderr
    model = load_checkpoint(out / "checkpoints" / "gpt2_offset-UF_L4_V12-n100")
    sets, _ = checkpoint_sets(CELL)
    for prompt_set in sets:
        expected = head_scores(model, prompt_set.build(12, 0))
        mine = [r for r in rows if r.checkpoint.startswith("gpt2_offset")
                and r.config == prompt_set.config]
        assert {(r.dataset, r.trained_on, r.model, r.n_prompts, r.seed) for r in mine} == {
            (prompt_set.dataset, "copy/UF_L4_V12", "gpt2_offset", 12, 0)}
        for r in mine:
            assert r.n_positions == expected["n_positions"]
            for name in SCORES:
                assert getattr(r, name) == pytest.approx(expected[name][r.layer, r.head],
                                                         abs=1e-12)
    # The table's score columns are the analysis' scores, in its order.
    assert HEAD_SCORE_COLUMNS == SCORES
    assert [f.name for f in fields(HeadsRow) if f.name in SCORES] == list(SCORES)


def test_patching_ranks_every_head_of_each_kind(scored):
    out, _ = scored
    rows = ResultsFolder(out).read(PatchingRow)
    groups = {}
    for r in rows:
        groups.setdefault((r.checkpoint, r.config, r.kind), []).append(r)
    assert {kind for _, _, kind in groups} == set(KINDS) and len(groups) == 2 * 9
    for group in groups.values():
        ranked = sorted(group, key=lambda r: r.rank)
        assert [r.rank for r in ranked] == list(range(1, 9))
        deltas = [r.delta_ce for r in ranked]
        assert deltas == sorted(deltas, reverse=True)
        assert all(r.delta_ce == pytest.approx(r.ce - r.base_ce) for r in ranked)


def test_a_rerun_adds_nothing_and_heads_json_nests_the_rows(scored):
    out, _ = scored
    before = {t: (out / t / "rank0.jsonl").read_bytes() for t in ("heads", "patching")}
    again = run_command(["heads", str(out), "--patch", *PROMPTS])
    assert again.returncode == 0, again.stderr
    assert "0 heads rows and 0 patching rows added, 9 prompt sets already recorded" in again.stdout
    assert {t: (out / t / "rank0.jsonl").read_bytes() for t in before} == before
    nested = json.loads((out / "heads.json").read_text())
    entry = nested["rope-UF_L4_V12-n100"]
    assert entry["model"] == "rope" and entry["trained_on"] == "copy/UF_L4_V12"
    ub = entry["configs"]["UB_L4_V12"]
    row = ResultsFolder(out).find(HeadsRow, ResultsFolder(out).read(HeadsRow)[0].key)
    first = nested[row.checkpoint]["configs"][row.config]
    assert first["scores"]["induction"][row.layer][row.head] == row.induction
    assert (ub["layers"], ub["heads"]) == (2, 4)
    assert [h["rank"] for h in ub["patching"]["induction"]] == list(range(1, 9))


def test_the_card_and_datasets_read_the_tables(scored):
    from huggingface_hub import DatasetCard

    from hf_induction.hub.leaderboard import load_table

    out, _ = scored
    configs = {c["config_name"] for c in DatasetCard.load(out / "README.md").data.to_dict()[
        "configs"]}
    assert {"heads", "patching"} <= configs
    heads = datasets.load_dataset(str(out), "heads", split="train")
    assert heads.num_rows == 9 * 8 and heads.features["induction"].dtype == "float64"
    patching = load_table(out, "patching")
    assert len(patching) == 9 * 16 and {r["kind"] for r in patching} == set(KINDS)
    # As written, but the time (`datasets` reads it as a timestamp).
    written = [r.to_dict() for r in ResultsFolder(out).read(PatchingRow)]
    assert [{**r, "finished_at": None} for r in patching] == [
        {**r, "finished_at": None} for r in written]
    # The command line that wrote the rows is on the card, once.
    assert ResultsFolder(out).read_campaign()["commands"] == [
        f"hf-induction heads {out} --patch {' '.join(PROMPTS)}"]


def test_the_report_shows_the_heads_and_draws_their_figures(scored, tmp_path):
    # One checkpoint's rows (a figure takes half a second to draw here).
    out, _ = scored
    one = ResultsFolder(tmp_path / "one")
    one.check_protocol({"train": {"max_steps": 1}})
    rope = "rope-UF_L4_V12-n100"
    for row in ResultsFolder(out).read(HeadsRow):
        if row.checkpoint == rope:
            one.append(row)
    for row in ResultsFolder(out).read(PatchingRow):
        if row.checkpoint == rope:
            one.append(row)
    proc = run_command(["report", str(one.path), "--out", str(tmp_path / "doc")])
    assert proc.returncode == 0, proc.stderr
    tables = (tmp_path / "doc" / "tables.md").read_text()
    section = tables.split("## Attention heads", 1)[1]
    heads, patching = section.split("### Patching")
    lines = [line for line in heads.splitlines() if line.startswith("| ")][1:]
    assert [line.split(" | ")[:3] for line in lines] == [
        ["| " + rope, "copy/UF_L4_V12", c] for c in ("copy/UB_L4_V12", "copy/UF_L4_V12",
                                                     "repeated_L4_V12")]
    assert len([line for line in patching.splitlines() if line.startswith("| ")]) == 1 + 3 * 2
    for name in (f"heads_{rope}_UB_L4_V12.png", f"patching_{rope}_UB_L4_V12.png"):
        assert f"]({name})" in section
        assert (tmp_path / "doc" / name).stat().st_size > 0
    assert len(list((tmp_path / "doc").glob("*.png"))) == 6
    # Linked in their section, not again among the other figures.
    assert "heads_" not in tables.split("## Attention heads")[0]


def test_any_model_folder_with_named_cells(scored, tmp_path):
    out, _ = scored
    rope = out / "checkpoints" / "rope-UF_L4_V12-n100"
    proc = run_command(["heads", "--checkpoint", str(rope), "--dataset", "copy", "--config",
                        "UB_L4_V12", "--out", str(tmp_path / "r"), *PROMPTS])
    assert proc.returncode == 0, proc.stderr
    rows = ResultsFolder(tmp_path / "r").read(HeadsRow)
    assert {(r.checkpoint, r.config, r.trained_on) for r in rows} == {
        (str(rope), c, "copy/UF_L4_V12") for c in ("UB_L4_V12", "repeated_L4_V12")}
    mine = {(r.layer, r.head): r.anti_induction for r in rows if r.config == "UB_L4_V12"}
    theirs = {(r.layer, r.head): r.anti_induction for r in ResultsFolder(out).read(HeadsRow)
              if r.checkpoint == rope.name and r.config == "UB_L4_V12"}
    assert mine == theirs
    assert not ResultsFolder(tmp_path / "r").read(PatchingRow)


def one_line_error(proc, *words):
    assert proc.returncode == 2, proc.stdout
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("hf-induction heads: error:"), err
    for word in words:
        assert word in err, err


def test_bad_input_is_one_line(scored, tmp_path):
    out, _ = scored
    one_line_error(run_command(["heads", str(out), "--model", "ropes"]),
                   "unknown model 'ropes'", "allowed")
    one_line_error(run_command(["heads", str(out), "--model", "gpt2"]),
                   "no checkpoint of gpt2", "gpt2_offset, lstm, rope")
    lstm = out / "checkpoints" / "lstm-UF_L4_V12-n100"
    checkpoint = ["--dataset", "copy", "--config", "UF_L4_V12", "--out", str(tmp_path / "x")]
    one_line_error(run_command(["heads", "--checkpoint", str(lstm), *checkpoint]),
                   "returns no attention weights")
    # Named, a model without attention is an error (unnamed, it is left out in a line).
    one_line_error(run_command(["heads", str(out), "--model", "lstm", "--no-progress"]),
                   "returns no attention weights")
    small = out / "checkpoints" / "rope-UR_L4_V6-n100"
    one_line_error(run_command(["heads", "--checkpoint", str(small), *checkpoint]),
                   "embeds 10 token ids", "up to 14")
    one_line_error(run_command(["heads", "--checkpoint", str(tmp_path), *checkpoint]),
                   "no config.json")
    one_line_error(run_command(["heads", "--checkpoint", str(lstm), "--dataset", "copy"]),
                   "--checkpoint needs --config, --out")
    one_line_error(run_command(["heads"]), "give either RESULTS_DIR")
    one_line_error(run_command(["heads", str(out), "--out", str(tmp_path / "y")]),
                   "--out go with --checkpoint")
    one_line_error(run_command(["heads", str(tmp_path)]), "is not a results folder")
    bare = tmp_path / "bare"
    ResultsFolder(bare).check_protocol({"train": {}})
    one_line_error(run_command(["heads", str(bare)]), "no checkpoints")
    # A checkpoint without the record of its training cell: named, with the way to score it.
    shutil.copytree(out / "checkpoints" / "rope-UF_L4_V12-n100", bare / "checkpoints" / "mine",
                    ignore=shutil.ignore_patterns("trained_on.json"))
    one_line_error(run_command(["heads", str(bare)]), "mine: left out, no readable "
                   "trained_on.json (score it with --checkpoint PATH")
    # Nothing of the refused --checkpoint runs was made.
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_prompts_no_machine_holds_are_refused_before_any_is_drawn(scored, tmp_path,
                                                                   monkeypatch):
    # A billion prompts ended in a 238 GiB allocation; nstar's floor of a training set holds.
    monkeypatch.setenv("HF_INDUCTION_MEMORY_GIB", "24")
    out, _ = scored
    huge = ["--prompts", "1000000000", "--no-progress"]
    one_line_error(run_command(["heads", str(out), *huge]),
                   "--prompts 1000000000 exceeds", "on repeated_L4_V12: 1000000000 prompts of 9 "
                   "tokens at 32 bytes a token", "more than 24.0 GiB")
    rope = out / "checkpoints" / "rope-UF_L4_V12-n100"
    one_line_error(run_command(["heads", "--checkpoint", str(rope), "--dataset", "copy",
                                "--config", "UF_L4_V12", "--out", str(tmp_path / "x"), *huge]),
                   "--prompts 1000000000 exceeds")
    assert not (tmp_path / "x").exists()


def test_a_family_task_its_symbols_cannot_draw_is_left_out():
    sets, left_out = checkpoint_sets(parse("copy", "NF_L6_V8"))
    assert [s.config for s in sets] == ["repeated_L6_V8"]
    assert left_out[0].startswith("copy UF: bad V=8") and len(left_out) == 2
    repeated = sets[0].build(5, seed=3)[0]
    assert np.array_equal(repeated.input_ids[:, 1:7], repeated.input_ids[:, 7:])


def test_a_folder_from_before_the_tables_reads_them_empty(tmp_path):
    from hf_induction.display.report import render_tables
    from hf_induction.hub.leaderboard import load_table
    from tests.runner.helpers import ROOT

    published = ROOT / "results" / "cpu"  # published before the heads tables existed
    assert not (published / "heads").exists()
    folder = ResultsFolder.existing(published)
    assert folder.read(HeadsRow) == [] and folder.read(PatchingRow) == []
    assert load_table(published, "heads") == [] and load_table(published, "patching") == []
    assert "## Attention heads" not in render_tables(folder)
    one_line_error(run_command(["heads", str(published)]), "no checkpoints")
    assert not (published / "heads").exists()
