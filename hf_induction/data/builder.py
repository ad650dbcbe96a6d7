"""The `datasets.GeneratorBasedBuilder` behind ``dataset_builders/``.

datasets >= 4 no longer runs loading scripts from the Hub, so the Hub gets parquet (see
``hub_folder``); this builder is for Python users who want a cell through the
`datasets` builder API, and it is the slow, row-by-row reference the parquet build is
tested against.
"""

from __future__ import annotations

import datasets

from ..tasks import (
    DISJOINT,
    FORMATS,
    GENERATOR_VERSION,
    LAYOUT_VERSION,
    SCALAR,
    TaskCell,
    WordProblemCell,
    generate,
)
from ..tasks import family as family_of
from ..tasks.sampling import check_validation_rule
from .arrow import features

PAPER_LENGTHS = (5, 10, 20, 30)
DISTS_IN_GRID = ("fixed", "uniform", "s2l")
# The second study's laws (retrieval, copy, lorem, git): each length alone, and all up to L.
STUDY_DISTS = ("fixed", "uniform")

# The builder's version names its cache folder, so it moves with anything that changes a row:
# the token layout (major) and the sampler's major.minor version (minor, patch).
BUILDER_VERSION = f"{LAYOUT_VERSION}.{'.'.join(GENERATOR_VERSION.split('.')[:2])}"


class TaskBuilderConfig(datasets.BuilderConfig):
    """A builder config for one cell; its ``name`` is the cell's config name. ``validation``
    is the rule that sets the validation split apart (`tasks.VALIDATION_RULES`):
    ``load_dataset(builder, "acot_L5", validation="in-distribution")``."""

    def __init__(self, cell: TaskCell, train_size: int | None = None, seed: int = 0,
                 validation: str = DISJOINT, **kw):
        super().__init__(name=str(cell), version=datasets.Version(BUILDER_VERSION), **kw)
        self.cell = cell
        self.train_size = train_size
        self.seed = seed
        self.validation = check_validation_rule(validation)


def grid_configs(dataset: str, family_params) -> list[TaskBuilderConfig]:
    """The paper grid of a group word problem: formats x L x dists x groups."""
    return cell_configs(
        WordProblemCell(dataset, fmt, L, dist, p)
        for p in family_params for fmt in FORMATS for L in PAPER_LENGTHS for dist in DISTS_IN_GRID
    )


def group_configs(groups, lengths=PAPER_LENGTHS) -> list[TaskBuilderConfig]:
    """The group family's grid: formats x L x dists x named groups."""
    return cell_configs(
        WordProblemCell("group", fmt, L, dist, g)
        for g in groups for fmt in FORMATS for L in lengths for dist in DISTS_IN_GRID
    )


def cell_configs(cells) -> list[TaskBuilderConfig]:
    """Builder configs for cells of any family."""
    return [TaskBuilderConfig(cell) for cell in cells]


class TaskBuilder(datasets.GeneratorBasedBuilder):
    """Subclasses set ``DATASET`` and ``BUILDER_CONFIGS``; the family supplies the rest."""

    DATASET = ""
    BUILDER_CONFIG_CLASS = TaskBuilderConfig

    def _info(self):
        cls = family_of(self.DATASET)
        return datasets.DatasetInfo(
            description=(cls.__doc__ or "").strip().splitlines()[0],
            features=features(cls), citation=cls.PAPER.bibtex, homepage=cls.PAPER.url,
        )

    def _split_generators(self, dl_manager):
        # `datasets` sets a keyword such as ``validation`` on a copy of the config, past its
        # __init__: checked here, before any row is generated.
        check_validation_rule(self.config.validation)
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"split": split})
            for split in self.config.cell.splits
        ]

    def _generate_examples(self, split):
        cfg = self.config
        ex = generate(cfg.cell, split, cfg.train_size if split == "train" else None, cfg.seed,
                      cfg.validation)
        kinds = cfg.cell.COLUMNS
        for i in range(len(ex)):
            n, t = int(ex.lengths[i]), int(ex.token_lengths[i])
            columns = {name: int(ex.columns[name][i]) if kind == SCALAR
                       else ex.columns[name][i, :n].tolist() for name, kind in kinds.items()}
            yield i, {
                "input_ids": ex.input_ids[i, :t].tolist(),
                "labels": ex.labels[i, :t].tolist(),
                **columns,
                "length": n,
            }
