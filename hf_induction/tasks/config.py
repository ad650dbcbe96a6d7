"""The group word problems (modadd, permutation): their cells, the one parser of their config
names, and everything the `TaskCell` protocol asks of a family.

Grammar::

    modadd:       {format}_L{L}[_{dist}][_m{m}]     e.g. acot_L20, outcome_L20_m10
    permutation:  {format}_L{L}[_{dist}][_S{k}]     e.g. cot_L10_uniform, acot_L30_s2l_S4

format in {outcome, cot, acot}; dist in {fixed, uniform, s2l} (default fixed);
modadd's default group is Z_5, permutation's is S_5. ``str()`` gives the canonical
name (defaults left out), and ``parse(str(c)) == c``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..citations import INDUCTION_BIAS, Paper
from .cell import SEQUENCE, Examples, TaskCell
from .groups import MAX_SYMMETRIC_DEGREE, Group, cyclic, symmetric
from .layout import FORMAT_NAMES, Vocab, encode, sequence_length
from .limits import MAX_TOKENS, MAX_VOCAB, check_length, check_vocab

GROUP_DATASETS = ("modadd", "permutation")
FORMATS = FORMAT_NAMES
DISTS = ("fixed", "uniform", "s2l")
DEFAULT_GROUP_PARAM = {"modadd": 5, "permutation": 5}
GROUP_PREFIX = {"modadd": "m", "permutation": "S"}
# How a group is written in tables and cards: Z_5, S_5.
GROUP_PREFIX_DISPLAY = {"modadd": "Z", "permutation": "S"}

GRAMMAR = (
    "config names follow '{format}_L{L}[_{dist}][_m{m}]' for modadd and "
    "'{format}_L{L}[_{dist}][_S{k}]' for permutation, with format in "
    f"{{{', '.join(FORMATS)}}}, dist in {{{', '.join(DISTS)}}} (default fixed), "
    "L >= 1 (>= 2 for uniform and s2l) while a row at the test length 2L has at most "
    f"{MAX_TOKENS} tokens, 2 <= m <= {MAX_VOCAB - 4} (default 5), "
    f"2 <= k <= {MAX_SYMMETRIC_DEGREE} (default 5); "
    "examples: acot_L20, cot_L10_uniform, outcome_L20_m10, acot_L30_s2l_S4"
)

_NAME = re.compile(
    r"^(?P<format>[a-z0-9]+)_L(?P<L>-?\d+)(?:_(?P<dist>[a-z0-9]+))??(?:_(?P<group>[mS]-?\d+))?$"
)


@dataclass(frozen=True)
class TaskConfig(TaskCell):
    """One cell of a group word problem: dataset, supervision format, length law and group."""

    COLUMNS: ClassVar[dict[str, str]] = {"elements": SEQUENCE, "states": SEQUENCE}
    GRAMMAR: ClassVar[str] = GRAMMAR
    PAPER: ClassVar[Paper] = INDUCTION_BIAS
    TASK_NAME: ClassVar[str] = "State tracking"
    TAGS: ClassVar[tuple[str, ...]] = ("state-tracking", "group-word-problem", "synthetic",
                                       "induction-bias")
    TEST_SPLIT_LABELS: ClassVar[dict[str, str]] = {"test": "length 2L"}
    OOD_CHECK: ClassVar[bool] = True
    LENGTH_SPAN: ClassVar[int] = 2

    dataset: str
    format: str
    max_len: int
    dist: str = "fixed"
    group_param: int | None = None

    def __post_init__(self):
        if self.dataset not in GROUP_DATASETS:
            raise ValueError(
                f"unknown dataset {self.dataset!r}; allowed: {', '.join(GROUP_DATASETS)}")
        if self.group_param is None:
            object.__setattr__(self, "group_param", DEFAULT_GROUP_PARAM[self.dataset])
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r}; {GRAMMAR}")
        if self.dist not in DISTS:
            raise ValueError(f"unknown length distribution {self.dist!r}; {GRAMMAR}")
        min_len = 1 if self.dist == "fixed" else 2
        if not isinstance(self.max_len, int) or self.max_len < min_len:
            raise ValueError(
                f"bad length L={self.max_len!r}: {self.dist} needs L >= {min_len}; {GRAMMAR}"
            )
        check_length(self)
        p = self.group_param
        if self.dataset == "modadd" and (not isinstance(p, int) or p < 2):
            raise ValueError(f"bad modulus m={p!r}: Z_m needs m >= 2; {GRAMMAR}")
        if self.dataset == "permutation" and (
            not isinstance(p, int) or not 2 <= p <= MAX_SYMMETRIC_DEGREE
        ):
            raise ValueError(
                f"bad degree k={p!r}: S_k needs 2 <= k <= {MAX_SYMMETRIC_DEGREE}; {GRAMMAR}"
            )
        check_vocab(self, "m" if self.dataset == "modadd" else "k")

    @classmethod
    def parse(cls, dataset: str, name: str) -> TaskConfig:
        """Parse a config name such as ``acot_L20`` for ``dataset``; ValueError if malformed."""
        if dataset not in GROUP_DATASETS:
            raise ValueError(f"unknown dataset {dataset!r}; allowed: {', '.join(GROUP_DATASETS)}")
        m = _NAME.match(name) if isinstance(name, str) else None
        if m is None:
            raise ValueError(f"cannot parse config name {name!r}; {GRAMMAR}")
        group = m["group"]
        group_param = None
        if group is not None:
            if group[0] != GROUP_PREFIX[dataset]:
                raise ValueError(
                    f"config {name!r}: group part {group!r} is not for {dataset} "
                    f"(it takes _{GROUP_PREFIX[dataset]}<n>); {GRAMMAR}"
                )
            group_param = int(group[1:])
        return cls(dataset, m["format"], int(m["L"]), m["dist"] or "fixed", group_param)

    def __str__(self) -> str:
        name = f"{self.format}_L{self.max_len}"
        if self.dist != "fixed":
            name += f"_{self.dist}"
        if self.group_param != DEFAULT_GROUP_PARAM[self.dataset]:
            name += f"_{GROUP_PREFIX[self.dataset]}{self.group_param}"
        return name

    @property
    def group(self) -> Group:
        return cyclic(self.group_param) if self.dataset == "modadd" else symmetric(self.group_param)

    @property
    def test_length(self) -> int:
        """Out-of-distribution length: twice the maximum training length."""
        return self.LENGTH_SPAN * self.max_len

    @property
    def test_splits(self) -> dict[str, tuple[int, ...]]:
        return {"test": (self.test_length,)}

    @property
    def vocab(self) -> Vocab:
        return Vocab(self.group.order)

    def symbol_names(self) -> list[str]:
        return self.group.element_names()

    def pool_size(self, n: int) -> int:
        return self.group.order**n

    def stream_key(self, n: int) -> list[int]:
        from .sampling import group_stream_key

        return group_stream_key(self.group, n)

    def stream(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        from .sampling import group_words

        return group_words(self.group, n, count, rng)

    def encode(self, items: np.ndarray, lengths: np.ndarray) -> Examples:
        states = self.group.scan(items)
        ids, labels = encode(self.format, items, states, lengths, self.vocab)
        return Examples(lengths, ids, labels, sequence_length(self.format, lengths),
                        {"elements": items, "states": states})

    def metrics(self, predictions, labels) -> dict[str, float]:
        from ..metrics import state_tracking_metrics

        return state_tracking_metrics(predictions, labels, self.group.order)

    def describe(self) -> dict[str, str]:
        return {"group": self.group.name, "format": self.format}

    @classmethod
    def layout_table(cls) -> str:
        from .layout import layout_table

        return layout_table()

    @property
    def variant(self) -> str:
        return f"{GROUP_PREFIX_DISPLAY[self.dataset]}_{self.group_param}"

    @property
    def kind(self) -> str:
        return self.format

    @property
    def family_param(self) -> int:
        return self.group_param

    def token_length(self, n: int) -> int:
        return sequence_length(self.format, n)
