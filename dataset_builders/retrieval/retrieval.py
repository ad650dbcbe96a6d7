"""Retrieval (induction and anti-induction): the six tasks at the study's lengths."""

from hf_induction.data.builder import STUDY_DISTS, TaskBuilder, cell_configs
from hf_induction.tasks.retrieval import TASKS, RetrievalCell

LENGTHS = (10, 20, 50)


class Retrieval(TaskBuilder):
    DATASET = "retrieval"
    BUILDER_CONFIGS = cell_configs(
        RetrievalCell(task, L, dist) for task in TASKS for L in LENGTHS for dist in STUDY_DISTS)
    DEFAULT_CONFIG_NAME = "UR_L10"
