"""Retrieval (induction and anti-induction): the six tasks at the study's lengths."""

from hf_induction.data.builder import TaskBuilder, named_configs
from hf_induction.tasks.retrieval import TASKS

LENGTHS = (10, 20, 50)


class Retrieval(TaskBuilder):
    DATASET = "retrieval"
    BUILDER_CONFIGS = named_configs("retrieval", [
        f"{task}_L{L}{dist}" for task in TASKS for L in LENGTHS for dist in ("", "_uniform")])
    DEFAULT_CONFIG_NAME = "UR_L10"
