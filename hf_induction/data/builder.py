"""The `datasets.GeneratorBasedBuilder` behind ``dataset_builders/``.

datasets >= 4 no longer runs loading scripts from the Hub, so the Hub gets parquet (see
``hub_layout``); this builder is for Python users who want a cell through the
`datasets` builder API, and it is the slow, row-by-row reference the parquet build is
tested against.
"""

from __future__ import annotations

import datasets

from ..tasks import FORMATS, GENERATOR_VERSION, LAYOUT_VERSION, TaskConfig, generate
from .arrow import FEATURES

PAPER_LENGTHS = (5, 10, 20, 30)
DISTS_IN_GRID = ("fixed", "uniform", "s2l")
CITATION = """@article{ebrahimi2026induction,
  title   = {On the 'Induction Bias' in Sequence Models},
  author  = {Ebrahimi, Mahdi and Defferrard, Micha{\\"e}l and Panchal, Sunny and Memisevic, Roland},
  journal = {arXiv preprint arXiv:2602.18333},
  year    = {2026}
}"""


# The builder's version names its cache folder, so it moves with anything that changes a row:
# the token layout (major) and the sampler's major.minor version (minor, patch).
BUILDER_VERSION = f"{LAYOUT_VERSION}.{'.'.join(GENERATOR_VERSION.split('.')[:2])}"


class TaskBuilderConfig(datasets.BuilderConfig):
    """A builder config for one cell; ``name`` follows the config grammar."""

    def __init__(self, task: TaskConfig, train_size: int | None = None, seed: int = 0, **kw):
        super().__init__(name=str(task), version=datasets.Version(BUILDER_VERSION), **kw)
        self.task = task
        self.train_size = train_size
        self.seed = seed


def grid_configs(dataset: str, group_params) -> list[TaskBuilderConfig]:
    """The paper grid: formats x L x dists x groups."""
    return [
        TaskBuilderConfig(TaskConfig(dataset, fmt, L, dist, p))
        for p in group_params for fmt in FORMATS for L in PAPER_LENGTHS for dist in DISTS_IN_GRID
    ]


class StateTrackingBuilder(datasets.GeneratorBasedBuilder):
    """Subclasses set ``DATASET`` and ``BUILDER_CONFIGS``."""

    DATASET = ""
    BUILDER_CONFIG_CLASS = TaskBuilderConfig

    def _info(self):
        return datasets.DatasetInfo(
            description=f"Group word problem ({self.DATASET}) for state tracking.",
            features=FEATURES, citation=CITATION,
            homepage="https://arxiv.org/abs/2602.18333",
        )

    def _split_generators(self, dl_manager):
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"split": split})
            for split in ("train", "validation", "test")
        ]

    def _generate_examples(self, split):
        cfg = self.config
        ex = generate(cfg.task, split, cfg.train_size if split == "train" else None, cfg.seed)
        for i in range(len(ex)):
            n, t = int(ex.lengths[i]), int(ex.token_lengths[i])
            yield i, {
                "input_ids": ex.input_ids[i, :t].tolist(),
                "labels": ex.labels[i, :t].tolist(),
                "elements": ex.elements[i, :n].tolist(),
                "states": ex.states[i, :n].tolist(),
                "length": n,
            }
