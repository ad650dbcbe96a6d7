"""Every table of a results folder loads with `datasets`, whichever tables hold rows yet."""

import uuid

import datasets
import pytest

from hf_induction.hub.leaderboard import load_table
from hf_induction.results import ResultsFolder


def test_one_table_with_rows_loads_while_the_others_are_empty(tmp_path):
    # `datasets` resolves every config of the card first; an empty table must not fail them.
    out = tmp_path / f"results-{uuid.uuid4().hex[:8]}"
    folder = ResultsFolder(out)
    folder.append_run("k1", {"n": 3, "success": True})
    rows = datasets.load_dataset(str(out), "journal", split="train")
    assert rows.num_rows == 1 and rows[0]["n"] == 3
    for table in ("nstar", "kappa", "ood", "lengthgen"):
        assert load_table(out, table) == []
        with pytest.raises(ValueError, match="no data"):
            datasets.load_dataset(str(out), table, split="train")


def test_the_card_is_the_libraries_and_nstar_is_the_default(tmp_path):
    from huggingface_hub import DatasetCard

    out = tmp_path / "results"
    ResultsFolder(out)
    card = DatasetCard.load(out / "README.md")
    configs = card.data.to_dict()["configs"]
    assert [c["config_name"] for c in configs if c.get("default")] == ["nstar"]
    assert {c["config_name"] for c in configs} == {"nstar", "kappa", "ood", "lengthgen",
                                                   "journal", "pushes"}
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
