"""Every config that a published folder's card declares loads through `datasets.load_dataset`
itself, as a Hub user and the dataset viewer load it, with the rows its files hold."""

import warnings
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

from hf_induction.results import CorruptLineWarning
from hf_induction.results.jsonl import read_jsonl

RESULTS = Path(__file__).resolve().parents[2] / "results"
FOLDERS = sorted(p.parent for p in RESULTS.rglob("protocol.json"))


def declared(folder: Path) -> list[str]:
    card = DatasetCard.load(folder / "README.md").data.to_dict()
    return [c["config_name"] for c in card.get("configs", [])]


def rows_on_disk(folder: Path, table: str) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("error", CorruptLineWarning)
        return sum(len(read_jsonl(p)) for p in (folder / table).glob("*.jsonl"))


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_every_declared_config_loads_with_its_rows(folder, tmp_path):
    # A cache of its own: offline, `datasets` could answer from a namesake folder's cache.
    configs = declared(folder)
    assert configs, f"{folder.name}'s card declares no table"
    datasets.disable_progress_bars()
    for config in configs:
        table = datasets.load_dataset(str(folder), config, split="train",
                                      cache_dir=str(tmp_path / config))
        assert table.num_rows == rows_on_disk(folder, config) > 0, config
    # The tables with rows are exactly the declared ones: none is left out of the card.
    tables = {p.parent.name for p in folder.glob("*/rank*.jsonl")}
    assert {t for t in tables if rows_on_disk(folder, t)} == set(configs)
