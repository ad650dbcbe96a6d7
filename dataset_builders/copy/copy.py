"""Copying forward and backward, distinct or repeating symbols, at the study's lengths."""

from hf_induction.data.builder import STUDY_DISTS, TaskBuilder, cell_configs
from hf_induction.tasks.copying import DEFAULT_SYMBOLS, TASKS, CopyCell

LENGTHS = (10, 20, 50)


def _cell(task: str, L: int, dist: str) -> CopyCell:
    # The test_long split reaches length 3L: 3L distinct symbols, or L repeating ones.
    symbols = max(DEFAULT_SYMBOLS, 3 * L if task.startswith("U") else L)
    return CopyCell(task, L, dist, symbols)


class Copy(TaskBuilder):
    DATASET = "copy"
    BUILDER_CONFIGS = cell_configs(
        _cell(task, L, dist) for task in TASKS for L in LENGTHS for dist in STUDY_DISTS)
    DEFAULT_CONFIG_NAME = "UF_L10"
