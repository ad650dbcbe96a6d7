"""Copying a git history forward (revert) and backward (cherry-pick), at the study's lengths."""

from hf_induction.data.builder import STUDY_DISTS, TaskBuilder, cell_configs
from hf_induction.tasks.git import TASKS, GitCell

LENGTHS = (10, 20)


class Git(TaskBuilder):
    DATASET = "git"
    BUILDER_CONFIGS = cell_configs(
        GitCell(task, L, dist) for task in TASKS for L in LENGTHS for dist in STUDY_DISTS)
    DEFAULT_CONFIG_NAME = "revert_L20"
