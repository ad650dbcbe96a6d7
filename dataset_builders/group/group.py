"""Word problems over any finite group: the paper's formats and length laws at L = 5 and 10,
on groups either side of the solvable line (order 12, 60 and 120, and Q8)."""

from hf_induction.data.builder import TaskBuilder, group_configs

# Matched in order: 12 (all solvable), 60 and 120 (across the line), and the quaternions.
GROUPS = ("Z12", "D6", "A4", "Q8", "Z60", "D30", "A4xZ5", "A5", "Z120", "S4xZ5", "S5",
          "A5xZ2")


class Group(TaskBuilder):
    DATASET = "group"
    BUILDER_CONFIGS = group_configs(GROUPS, lengths=(5, 10))
    DEFAULT_CONFIG_NAME = "acot_L5_A5"
