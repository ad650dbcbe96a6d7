"""Data: a task cell as Arrow tables, `datasets.Dataset`s, Hub-layout folders and arrays.

Uses the tasks room; knows nothing of models or training.
"""

from .arrow import examples_to_table, features, to_dataset
from .hub_layout import build_folder, read_configs
from .tensors import CellArrays, cell_arrays

__all__ = [
    "CellArrays", "build_folder", "cell_arrays", "examples_to_table", "features",
    "read_configs", "to_dataset",
]
