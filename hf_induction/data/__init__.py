"""Data: a cell as Arrow tables and `datasets.Dataset`s (``arrow``), a folder laid out as a
Hub dataset repo (``hub_folder``), the `datasets` builder (``builder``) and the numpy arrays a
training run reads (``arrays``).

Uses the tasks room; knows nothing of models or training.
"""

from .arrays import CellArrays, cell_arrays
from .arrow import examples_to_table, features, to_dataset
from .hub_folder import build_folder, read_configs
from .token_map import TokenMap

__all__ = [
    "CellArrays", "build_folder", "cell_arrays", "examples_to_table", "features",
    "read_configs", "to_dataset", "TokenMap",
]
