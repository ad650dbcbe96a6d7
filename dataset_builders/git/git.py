"""Copying a git history forward (revert) and backward (cherry-pick), at the study's lengths."""

from hf_induction.data.builder import TaskBuilder, named_configs
from hf_induction.tasks.git import TASKS

LENGTHS = (10, 20)


class Git(TaskBuilder):
    DATASET = "git"
    BUILDER_CONFIGS = named_configs("git", [
        f"{task}_L{L}{dist}" for task in TASKS for L in LENGTHS for dist in ("", "_uniform")])
    DEFAULT_CONFIG_NAME = "revert_L20"
