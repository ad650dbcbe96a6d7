"""One campaign per folder: folders never nest, the card says what a folder holds and how it
was made, the rows of a cell carry the cell parsed, and every table declares its columns."""

import json
from dataclasses import fields
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

from hf_induction import tasks
from hf_induction.results import (
    CELL_COLUMNS,
    JournalRow,
    KappaRow,
    LengthGenRow,
    NestedResults,
    NstarRow,
    OodRow,
    ResultsFolder,
    command_line,
)
from hf_induction.results.card import TABLES
from hf_induction.results.rows import PushRow, cell_columns

RESULTS = Path(__file__).resolve().parents[2] / "results"
PUBLISHED = sorted(p.parent for p in RESULTS.rglob("protocol.json"))
PROTOCOL = {"train": {"max_steps": 1500, "lrs": [0.03, 0.01], "seeds": [10, 20],
                      "epsilon": 1e-4, "early_failure": {"name": "forecast", "whole_pool": False}},
            "search": {"mode": "refined", "n_start": 8},
            "by_model": {"gpt2": {"train": {"max_steps": 5000, "lrs": [1e-3, 3e-4]}}}}


def campaign(path: Path) -> ResultsFolder:
    folder = ResultsFolder(path)
    folder.check_protocol(PROTOCOL)
    return folder


# -- one campaign per folder --------------------------------------------------------------
def test_a_new_folder_inside_a_results_folder_is_refused(tmp_path):
    campaign(tmp_path / "first")
    with pytest.raises(NestedResults) as e:
        ResultsFolder(tmp_path / "first" / "inner" / "second")
    message = str(e.value)
    assert len(message.splitlines()) == 1
    assert str(tmp_path / "first" / "inner" / "second") in message
    assert str(tmp_path / "first") in message and "inside" in message
    assert not (tmp_path / "first" / "inner").exists()


def test_a_new_folder_around_a_results_folder_is_refused(tmp_path):
    campaign(tmp_path / "all" / "cpu")
    with pytest.raises(NestedResults, match="around the results folder .*cpu"):
        ResultsFolder(tmp_path / "all")
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == ["cpu"]
    # Beside it is where a second campaign goes.
    campaign(tmp_path / "all" / "gpt2")


def test_an_existing_folder_reopens_to_resume_even_where_an_old_layout_nests_it(tmp_path):
    outer = campaign(tmp_path / "outer")
    # The layout before campaigns were siblings: a folder made inside another one.
    inner = tmp_path / "outer" / "inner"
    inner.mkdir()
    (inner / "protocol.json").write_text(json.dumps(PROTOCOL))
    ResultsFolder(inner).append_run("k1", {"n": 3, "success": True})
    assert ResultsFolder(inner, rank=1).find_run("k1")["n"] == 3
    assert ResultsFolder(tmp_path / "outer").check_protocol(PROTOCOL) == outer.check_protocol(
        PROTOCOL)


def test_nstar_refuses_a_nested_folder_in_one_line_before_writing(tmp_path, capsys):
    from hf_induction.commands.nstar import main

    campaign(tmp_path / "first")
    out = tmp_path / "first" / "second"
    with pytest.raises(SystemExit) as e:
        main(["--dataset", "modadd", "--config", "acot_L3", "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1
    assert str(out) in err and str(tmp_path / "first") in err
    assert not out.exists()


def test_the_published_campaigns_are_siblings():
    assert PUBLISHED and not (RESULTS / "protocol.json").exists()
    for folder in PUBLISHED:
        assert folder.parent == RESULTS, folder
        assert not [p for p in folder.rglob("protocol.json") if p.parent != folder]


# -- the card ---------------------------------------------------------------------------
def test_the_card_says_what_the_folder_holds_its_protocol_and_commands(tmp_path):
    folder = campaign(tmp_path / "cpu")
    protocol = (tmp_path / "cpu" / "protocol.json").read_bytes()
    folder.describe("L = 5 under the per-model budgets.")
    argv = ["scripts/nstar.py", "--dataset", "modadd", "--config", "acot_L5", "--out", "a b"]
    folder.record_command(argv)
    folder.record_command(argv)  # a resume adds nothing
    ResultsFolder(tmp_path / "cpu", rank=1).record_command(["scripts/nstar.py", "--kappa"])
    assert folder.read_campaign() == {
        "description": "L = 5 under the per-model budgets.",
        "commands": ["python scripts/nstar.py --dataset modadd --config acot_L5 --out 'a b'"]}
    text = DatasetCard.load(tmp_path / "cpu" / "README.md").text
    assert text.index("L = 5 under the per-model budgets.") < text.index("## Protocol")
    assert ("- every other model: 1,500 steps, lr {0.03, 0.01} × seeds {10, 20}, ε 0.0001, "
            "refined search from N = 8, early failure: forecast") in text
    assert "- gpt2: 5,000 steps, lr {0.001, 0.0003} × seeds {10, 20}" in text
    assert "python scripts/nstar.py --dataset modadd --config acot_L5 --out 'a b'" in text
    # The description and commands live beside the protocol, whose hash keys the runs.
    assert (tmp_path / "cpu" / "protocol.json").read_bytes() == protocol


def test_a_command_line_reads_as_typed():
    assert command_line(["scripts/nstar.py", "--config", "acot_L5"]) == (
        "python scripts/nstar.py --config acot_L5")
    assert command_line(["/usr/local/bin/hf-induction", "nstar", "--out", "x y"]) == (
        "hf-induction nstar --out 'x y'")


def test_every_table_declares_its_columns(tmp_path):
    folder = ResultsFolder(tmp_path / "r")
    for table in folder.tables:
        table.append({"key": "k"})
    card = DatasetCard.load(tmp_path / "r" / "README.md")
    declared = {info["config_name"]: [f["name"] for f in info["features"]]
                for info in card.data.to_dict()["dataset_info"]}
    assert declared == {name: [f.name for f in fields(row)] for name, row in TABLES.items()}


def test_an_empty_pushes_table_is_not_declared_and_a_push_loads(tmp_path):
    folder = campaign(tmp_path / "r")
    cache = str(tmp_path / "cache")
    with pytest.raises(ValueError, match="'pushes' not found"):
        datasets.load_dataset(str(tmp_path / "r"), "pushes", split="train", cache_dir=cache)
    folder.append_push("p1", "org/model", "s1")
    pushes = datasets.load_dataset(str(tmp_path / "r"), "pushes", split="train",
                                   cache_dir=str(tmp_path / "cache2"))
    assert pushes[0]["repo_id"] == "org/model" and folder.find(PushRow, "p1").search == "s1"


def test_the_journal_declares_the_columns_the_runner_writes(tmp_path, monkeypatch):
    from hf_induction.runner import probe as probe_module
    from tests.runner.test_probe_order import fake_train_grid, make_probe

    monkeypatch.setattr(probe_module, "train_grid", fake_train_grid([]))
    probe = make_probe(tmp_path / "out")
    probe(16)
    journal = ResultsFolder(tmp_path / "out").read_journal()
    assert journal and all(set(row) == {f.name for f in fields(JournalRow)} for row in journal)
    loaded = datasets.load_dataset(str(tmp_path / "out"), "journal", split="train",
                                   cache_dir=str(tmp_path / "cache"))
    assert loaded.num_rows == len(journal)


# -- the cell as columns ----------------------------------------------------------------
@pytest.mark.parametrize("dataset,config,columns", [
    ("modadd", "acot_L10_uniform_m3", (10, "Z_3", 3, "acot", "uniform")),
    ("permutation", "cot_L5_S3", (5, "S_3", 6, "cot", "fixed")),
    ("retrieval", "NRLast_L10_s2l_V8", (10, "V8", 8, "NRLast", "s2l")),
    ("copy", "UF_L10_uniform", (10, "V32", 32, "UF", "uniform")),
], ids=lambda v: v if isinstance(v, str) else "")
def test_a_row_carries_its_cell_parsed(dataset, config, columns):
    row = OodRow(key="k", dataset=dataset, config=config, model="lstm", model_config_hash="h",
                 n=8, lr=1e-3, seed=10, steps=100, val_loss=None, test_length=20,
                 state_accuracy=1.0, final_state_accuracy=1.0, normalised_state_accuracy=1.0,
                 normalised_final_state_accuracy=1.0, protocol_hash="p", finished_at="t")
    assert tuple(getattr(row, c) for c in CELL_COLUMNS[:5]) == columns
    # The group facts: a word problem's group has them, the other families none.
    assert (row.word_problem == "TC0") == (dataset in ("modadd", "permutation"))
    stored = row.to_dict()
    # A row written before the columns existed reads back with them.
    old = {k: v for k, v in stored.items() if k not in CELL_COLUMNS}
    assert OodRow.from_dict(old) == row == OodRow.from_dict(stored)
    # A name this version cannot parse keeps what the row says.
    other = OodRow.from_dict({**stored, "config": "acot_L10_newlaw"})
    assert tuple(getattr(other, c) for c in CELL_COLUMNS) == tuple(getattr(row, c)
                                                                  for c in CELL_COLUMNS)


@pytest.mark.parametrize("folder", PUBLISHED, ids=lambda p: p.name)
def test_the_published_rows_carry_their_cells(folder):
    for table, row_class in (("nstar", NstarRow), ("kappa", KappaRow), ("ood", OodRow),
                             ("lengthgen", LengthGenRow)):
        for path in sorted((folder / table).glob("rank*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                stored = json.loads(line)
                cell = tasks.parse(stored["dataset"], stored["config"])
                parsed = cell_columns(cell)
                assert [stored[c] for c in CELL_COLUMNS] == [parsed.get(c) for c in CELL_COLUMNS]
                assert json.loads(json.dumps(row_class.from_dict(stored).to_dict())) == stored
    assert ResultsFolder(folder, write=False).read_campaign()["description"]
