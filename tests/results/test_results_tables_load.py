"""Every table of a results folder loads with `datasets`, whichever tables hold rows yet."""

import shutil
import uuid

import datasets
import pytest

from hf_induction.hub.leaderboard import load_table
from hf_induction.results import NstarRow, ResultsFolder


def declared(out) -> list[str]:
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(out / "README.md").data.to_dict()
    return [c["config_name"] for c in card.get("configs", [])]


def test_one_table_with_rows_loads_and_the_empty_ones_are_not_declared(tmp_path):
    # `datasets` cannot load a table of no rows ("corresponds to no data"): the card declares
    # the tables that hold rows, and a table joins with its first row, from any process.
    out = tmp_path / f"results-{uuid.uuid4().hex[:8]}"
    folder = ResultsFolder(out)
    assert declared(out) == []
    ResultsFolder(out, rank=1).append_run("k1", {"n": 3, "success": True})
    assert declared(out) == ["journal"]
    rows = datasets.load_dataset(str(out), "journal", split="train",
                                 cache_dir=str(tmp_path / "cache"))
    assert rows.num_rows == 1 and rows[0]["n"] == 3
    for table in ("nstar", "kappa", "ood", "lengthgen", "heads", "patching"):
        assert load_table(out, table) == []
        with pytest.raises(ValueError, match=f"'{table}' not found"):
            datasets.load_dataset(str(out), table, split="train")
    folder.append_push("p1", "org/model", "s1")
    assert declared(out) == ["journal", "pushes"]


def test_the_card_is_the_libraries_and_nstar_is_the_default(tmp_path):
    from huggingface_hub import DatasetCard

    out = tmp_path / "results"
    folder = ResultsFolder(out)
    folder.append_run("k1", {"n": 3, "success": True})
    # The first table in the card's order is the default while N* has no row.
    assert [c["config_name"] for c in DatasetCard.load(out / "README.md").data.to_dict()[
        "configs"] if c.get("default")] == ["journal"]
    folder.table(NstarRow).append({"key": "s1"})
    card = DatasetCard.load(out / "README.md")
    configs = card.data.to_dict()["configs"]
    assert [c["config_name"] for c in configs if c.get("default")] == ["nstar"]
    assert {c["config_name"] for c in configs} == {"nstar", "journal"}
    assert "https://arxiv.org/abs/2602.18333" in card.text
    assert "https://arxiv.org/abs/2505.21785" in card.text


def test_a_folder_is_read_afresh_after_it_grows_and_never_as_its_namesake(tmp_path):
    # `datasets` caches a local folder under its base name: both folders here are "results".
    first, second = tmp_path / "a" / "results", tmp_path / "b" / "results"
    ResultsFolder(first).append_run("k1", {"n": 3, "success": True})
    assert [r["n"] for r in load_table(first, "journal")] == [3]
    ResultsFolder(first).append_run("k2", {"n": 5, "success": False})
    assert sorted(r["n"] for r in load_table(first, "journal")) == [3, 5]
    ResultsFolder(second).append_run("k9", {"n": 8, "success": True})
    assert [r["n"] for r in load_table(second, "journal")] == [8]


def test_a_table_reads_every_row_whichever_of_its_files_are_empty(tmp_path):
    # Rank 0 touches every table's file; a table that rank 0 never wrote to reads as empty
    # first, and `datasets` infers an undeclared table's columns from its first file.
    folder = ResultsFolder(tmp_path / "results")
    ResultsFolder(folder.path, rank=1).append_run("k1", {"n": 3, "success": True})
    ResultsFolder(folder.path, rank=2).append_push("p1", "org/ckpt", "s1")
    (folder.path / "pushes" / "rank3.jsonl").touch()
    assert [r["n"] for r in load_table(folder.path, "journal")] == [3]
    assert [r["repo_id"] for r in load_table(folder.path, "pushes")] == ["org/ckpt"]
    # Without a card (nothing declared) and with a table of no file at all.
    bare = tmp_path / "bare"
    shutil.copytree(folder.path / "pushes", bare / "pushes")
    assert [r["search"] for r in load_table(bare, "pushes")] == ["s1"]
    assert load_table(bare, "nstar") == []


def test_declared_column_types_hold_whatever_the_rows_spell(tmp_path):
    # The card declares pool_size float64 (S5 at length 10 overflows an int64); a row that
    # spells it as an integer, in a rank file after an empty one, still reads as a float.
    folder = ResultsFolder(tmp_path / "results")
    ResultsFolder(folder.path, rank=1).table(NstarRow).append({"key": "s1", "pool_size": 10**6})
    (row,) = load_table(folder.path, "nstar")
    assert row["key"] == "s1" and row["pool_size"] == 1e6 and isinstance(row["pool_size"], float)
    assert row["n_star"] is None
