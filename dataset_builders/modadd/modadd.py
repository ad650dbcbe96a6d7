"""Modular addition (Z_m word problem): the paper's grid of configs."""

from hf_induction.data.builder import TaskBuilder, grid_configs

PAPER_MODULI = (2, 3, 5, 10, 15, 20, 50, 75, 100)


class ModAdd(TaskBuilder):
    DATASET = "modadd"
    BUILDER_CONFIGS = grid_configs("modadd", PAPER_MODULI)
    DEFAULT_CONFIG_NAME = "acot_L20"
