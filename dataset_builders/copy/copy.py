"""Copying forward and backward, distinct or repeating symbols, at the study's lengths."""

from hf_induction.data.builder import TaskBuilder, named_configs
from hf_induction.tasks.copying import DEFAULT_SYMBOLS, TASKS

LENGTHS = (10, 20, 50)


def _name(task: str, L: int, dist: str) -> str:
    # The test_long split reaches length 3L: 3L distinct symbols, or L repeating ones.
    symbols = max(DEFAULT_SYMBOLS, 3 * L if task.startswith("U") else L)
    return f"{task}_L{L}{dist}" + ("" if symbols == DEFAULT_SYMBOLS else f"_V{symbols}")


class Copy(TaskBuilder):
    DATASET = "copy"
    BUILDER_CONFIGS = named_configs("copy", [
        _name(task, L, dist) for task in TASKS for L in LENGTHS for dist in ("", "_uniform")])
    DEFAULT_CONFIG_NAME = "UF_L10"
