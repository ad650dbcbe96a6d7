"""Reading a results folder's tables as ``load_dataset`` reads them: through its dataset
card's file patterns and declared column types (`card.render_card` writes them), so a
reader sees every table as the Hub's dataset viewer does."""

from __future__ import annotations

import copy
import functools
import tempfile
from pathlib import Path
from typing import Any

from .tables import table_of

# The dataset card: which files make each table, and their declared column types.
CARD = "README.md"


def read_table(folder: str | Path, table: str, *, cache_dir: str | None = None) -> list[dict]:
    """Every row of config ``table`` ("nstar", "kappa", "journal", ...) of a results folder
    (or of a local copy of a Hub dataset repo), as ``load_dataset`` reads it; [] for a table
    with no row, or no file.

    The table's files and column types are those its dataset card names and declares. Only
    files that hold rows are
    read, through ``datasets``' json builder: where the card declares no types, that builder
    infers them from the first file, and an empty one (a process that wrote no row yet) would
    fail the table even where another file has rows.
    """
    import datasets
    from datasets.data_files import DataFilesList

    folder = Path(folder)
    patterns, features = card_table(folder, table)
    files = [f for f in DataFilesList.from_patterns(patterns, str(folder))
             if Path(f).stat().st_size > 0]
    if not files:
        return []
    # A table of a few rows reads in milliseconds: no "Generating train split" bar a table.
    shown = datasets.utils.logging.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        with tempfile.TemporaryDirectory() as fresh:
            # Without a cache of the caller's, a throwaway one: `datasets` would keep a copy
            # of every version of a folder that grows as its searches run.
            return datasets.load_dataset("json", data_files=files, features=features,
                                         split="train", cache_dir=cache_dir or fresh).to_list()
    finally:
        if shown:
            datasets.enable_progress_bars()


def card_table(folder: Path, table: str) -> tuple[list[str], Any]:
    """(the file patterns of config ``table``, its declared `datasets.Features` or None), as
    ``folder``'s dataset card states them; ``table/*.jsonl`` and None where it is silent."""
    card = folder / CARD
    if not card.is_file():
        return [f"{table}/*.jsonl"], None
    stat = card.stat()
    patterns, features = _read_card(card.resolve(), (stat.st_mtime_ns, stat.st_size))
    return list(patterns.get(table, (f"{table}/*.jsonl",))), copy.deepcopy(features.get(table))


@functools.lru_cache(maxsize=32)
def _read_card(card: Path, stamp: tuple[int, int]) -> tuple[dict[str, tuple[str, ...]], dict]:
    """(config -> file patterns, config -> declared `datasets.Features`) of a dataset card.
    Parsing a card's YAML takes a tenth of a second, and a reader asks for several tables of
    one card: it is parsed once per version (``stamp``: its time and size)."""
    from datasets.data_files import sanitize_patterns
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    data = DatasetCard.load(card).data
    patterns = {name: tuple(p for split in sanitize_patterns(config["data_files"]).values()
                            for p in split)
                for name, config in MetadataConfigs.from_dataset_card_data(data).items()
                if "data_files" in config}
    features = {name: info.features
                for name, info in DatasetInfosDict.from_dataset_card_data(data).items()}
    return patterns, features


def read_rows(folder: str | Path, row_class: type, **kwargs: Any) -> list[Any]:
    """Every row of the table of ``row_class`` (`tables.TABLES`) as that class."""
    return [row_class.from_dict(row)
            for row in read_table(folder, table_of(row_class).name, **kwargs)]
