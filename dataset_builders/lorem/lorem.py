"""Copying a Lorem-ipsum paragraph, at the study's length (500 tokens) and at shorter ones."""

from hf_induction.data.builder import STUDY_DISTS, TaskBuilder, cell_configs
from hf_induction.tasks.lorem import LoremCell

LENGTHS = (40, 100, 500)


class Lorem(TaskBuilder):
    DATASET = "lorem"
    BUILDER_CONFIGS = cell_configs(
        LoremCell("copy", L, dist) for L in LENGTHS for dist in STUDY_DISTS)
    DEFAULT_CONFIG_NAME = "copy_L500"
