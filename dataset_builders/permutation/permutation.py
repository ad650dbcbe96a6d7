"""Permutation composition (S_k word problem): the paper's grid of configs, on S_5."""

from hf_induction.data.builder import StateTrackingBuilder, grid_configs


class Permutation(StateTrackingBuilder):
    DATASET = "permutation"
    BUILDER_CONFIGS = grid_configs("permutation", (5,))
    DEFAULT_CONFIG_NAME = "acot_L20"
