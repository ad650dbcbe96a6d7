"""Permutation composition (S_k word problem): the paper's grid of configs, on S_5."""

from hf_induction.data.builder import TaskBuilder, grid_configs


class Permutation(TaskBuilder):
    DATASET = "permutation"
    BUILDER_CONFIGS = grid_configs("permutation", (5,))
    DEFAULT_CONFIG_NAME = "acot_L20"
