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
