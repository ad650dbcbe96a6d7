"""Copying a Lorem-ipsum paragraph, at the study's length (500 tokens) and at shorter ones."""

from hf_induction.data.builder import TaskBuilder, named_configs

LENGTHS = (40, 100, 500)


class Lorem(TaskBuilder):
    DATASET = "lorem"
    BUILDER_CONFIGS = named_configs("lorem", [
        f"copy_L{L}{dist}" for L in LENGTHS for dist in ("", "_uniform")])
    DEFAULT_CONFIG_NAME = "copy_L500"
