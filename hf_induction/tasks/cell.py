"""The `TaskCell` protocol every family implements, and `Examples`, a cell's split as arrays.

A *family* is one Hub dataset (``modadd``, ``permutation``, ``retrieval``, ``copy``, ``lorem``,
``git``); a *cell* is one config of it (``acot_L10_uniform``, ``NRLast_L10_V16``), a frozen
`TaskCell`. The family's cell class owns everything that is specific to it: its name grammar,
vocabulary and special tokens, the exact pool of distinct items per length, a generator of
those items, the token layout of a row, the semantic columns and the metrics. Everything shared
lives here (lengths in play, the κ cells) and in ``sampling`` (the train / validation / test
splits, drawn without replacement from per-length streams, and `sampling.generate`). Adding a
family is one module with a `TaskCell` subclass and one line in ``registry.FAMILIES``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from ..citations import Paper
from .token_layout import Vocab

SCALAR, SEQUENCE = "scalar", "sequence"


@dataclass(frozen=True)
class Examples:
    """One split of one cell; row i is example i. Padded arrays plus per-row lengths.

    ``columns`` holds the family's semantic columns (``elements`` and ``states`` of a word
    problem, ``context``/``query``/``answer`` of retrieval, ``source``/``target`` of copy):
    a sequence column is ``[K, max_n]`` valid up to ``lengths``, a scalar column ``[K]``. They
    read as attributes too (``ex.elements``).
    """

    lengths: np.ndarray  # [K] n
    input_ids: np.ndarray  # [K, T] padded with PAD
    labels: np.ndarray  # [K, T] causal-LM labels (the model shifts), -100 where unsupervised
    token_lengths: np.ndarray  # [K] unpadded length of input_ids / labels
    columns: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.lengths)

    def __getattr__(self, name: str) -> np.ndarray:
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]
        raise AttributeError(name)


class TaskCell:
    """One cell of a task family: what every room asks of a task, whatever the family.

    Subclasses are frozen dataclasses with at least the fields ``dataset``, ``max_len`` and
    ``dist``, and implement the methods below that raise NotImplementedError.
    """

    dataset: str
    max_len: int
    dist: str
    # The family's semantic columns, name -> SCALAR (one value per row) or SEQUENCE (n values).
    COLUMNS: ClassVar[dict[str, str]] = {}
    # The family's name grammar, shown with every parse error.
    GRAMMAR: ClassVar[str] = ""
    # The paper that defines the family (its card and builder cite it).
    PAPER: ClassVar[Paper]
    # The Hub tags of the family's dataset card, and the task its checkpoints' cards name.
    TAGS: ClassVar[tuple[str, ...]] = ("synthetic",)
    TASK_NAME: ClassVar[str] = ""
    # Whether the word problems' out-of-distribution check (length 2L, accuracy normalised by
    # chance 1/|G|) applies; every family has the length-generalisation check.
    OOD_CHECK: ClassVar[bool] = False
    # How each test split's lengths relate to L, for cards: {"test": "length 2L"}.
    TEST_SPLIT_LABELS: ClassVar[dict[str, str]] = {}
    # The longest length of any split is LENGTH_SPAN x L (test at 2L; test_long up to 3L): the
    # rows the bounds of `limits` are checked on, without listing the lengths.
    LENGTH_SPAN: ClassVar[int] = 1

    # -- the name grammar --------------------------------------------------------------
    @classmethod
    def parse(cls, dataset: str, name: str) -> TaskCell:
        raise NotImplementedError

    @classmethod
    def match_name(cls, pattern: re.Pattern[str], name: object) -> re.Match[str]:
        """The whole of ``name`` matched by the family's ``pattern``, or ValueError with the
        grammar. A name is ASCII: Python's int() and ``\\d`` read a full-width or Arabic-Indic
        digit as a digit, and such a name would be recorded under another spelling."""
        if not isinstance(name, str):
            raise ValueError(f"cannot parse config name {name!r}; {cls.GRAMMAR}")
        odd = next((c for c in name if not c.isascii()), None)
        if odd is not None:
            raise ValueError(f"config name {name!r} has the non-ASCII character {odd!r} "
                             f"(U+{ord(odd):04X}); names are ASCII; {cls.GRAMMAR}")
        match = pattern.fullmatch(name)
        if match is None:
            raise ValueError(f"cannot parse config name {name!r}; {cls.GRAMMAR}")
        return match

    @property
    def name(self) -> str:
        return str(self)

    # -- lengths ----------------------------------------------------------------------
    @property
    def min_length(self) -> int:
        """The shortest length the family's items exist at, under a uniform or s2l law."""
        return 2

    @property
    def lengths(self) -> tuple[int, ...]:
        """The sequence lengths n in play: (L,) for fixed, min_length..L otherwise."""
        if self.dist == "fixed":
            return (self.max_len,)
        return tuple(range(self.min_length, self.max_len + 1))

    def with_length(self, n: int) -> TaskCell:
        """The fixed-length-n cell of the same family and variant (one term of κ's sum)."""
        return replace(self, max_len=n, dist="fixed")

    def joint(self) -> TaskCell:
        """The uniform cell over every length up to L (κ's denominator)."""
        return replace(self, dist="uniform")

    @property
    def test_splits(self) -> dict[str, tuple[int, ...]]:
        """Out-of-distribution splits: name -> the lengths they hold."""
        raise NotImplementedError

    @property
    def splits(self) -> tuple[str, ...]:
        return ("train", "validation", *self.test_splits)

    def split_label(self, split: str) -> str:
        return self.TEST_SPLIT_LABELS.get(split, "")

    # -- vocabulary and pools ------------------------------------------------------------
    @property
    def vocab(self) -> Vocab:
        raise NotImplementedError

    def symbol_names(self) -> list[str]:
        """One printable token string per symbol id, for the tokenizer."""
        raise NotImplementedError

    def pool_size(self, n: int) -> int:
        """The exact number of distinct items of length n (a Python int)."""
        raise NotImplementedError

    def stream_key(self, n: int) -> list[int]:
        """Integers naming the pool of length n, for the random streams' seeds."""
        raise NotImplementedError

    def item_width(self, n: int) -> int:
        """Integers per item of length n (the items' row width in ``stream``)."""
        return n

    def stream(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        """The first ``count`` items of one random order of the pool of length n:
        ``[count, item_width(n)]`` int rows, all distinct. Only ``rng`` is random, and
        asking for more never changes the earlier rows (prefix-stable)."""
        raise NotImplementedError

    # -- rows ------------------------------------------------------------------------
    def encode(self, items: np.ndarray, lengths: np.ndarray) -> Examples:
        """Rows of items ``[K, width]`` (valid up to ``item_width(lengths[k])``)."""
        raise NotImplementedError

    def metrics(self, predictions, labels) -> dict[str, float]:
        """What "correct" means for the family: the model's ids or logits on ``input_ids``
        against the rows' labels (the functions shift them)."""
        raise NotImplementedError

    def describe(self) -> dict[str, str]:
        """Short facts for cards and tables, e.g. {"group": "Z5"} or {"symbols": "16"}."""
        raise NotImplementedError

    @classmethod
    def layout_table(cls) -> str:
        """A markdown table of the family's rows, drawn from its own encoder, for the cards."""
        raise NotImplementedError

    @property
    def variant(self) -> str:
        """The family parameter as one short label, e.g. "Z_5", "S_5", "V16"."""
        raise NotImplementedError

    @property
    def kind(self) -> str:
        """What the model is asked to do: the supervision format of a word problem (acot), the
        retrieval or copy task (NRLast)."""
        raise NotImplementedError

    @property
    def family_param(self) -> int:
        """The integer the name's last part sets: m of Z_m, k of S_k, V symbols."""
        raise NotImplementedError

    @property
    def alphabet_size(self) -> int:
        """How many symbols the items are made of (|G|, V): the x-axis of "N* against size"."""
        return self.vocab.order

    def token_length(self, n: int) -> int:
        """Tokens of an example of length n (``input_ids``)."""
        raise NotImplementedError

    def answer_tokens(self, n: int) -> int:
        """Symbol targets of an example of length n: what its exact match asks to be right."""
        return n

    def metric_chance(self, metric: str) -> float | None:
        """What uniform guessing scores on a metric of the family's own (one `chance` does not
        know), None if it depends on the rows."""
        return None

    def draw_cost(self, n: int) -> int:
        """Big-integer products one draw at length n takes before its rows (0 for a family
        whose draws are arrays only): what `limits.MAX_DRAW_COST` bounds."""
        return 0

    def family_name(self) -> str:
        """The cell without its length law and variant, e.g. "acot_L10_uniform" -> the series
        that N* against the alphabet size draws."""
        return f"{self.kind}_L{self.max_len}" + ("" if self.dist == "fixed" else f"_{self.dist}")


def vocab_of(cell: TaskCell) -> Vocab:
    return cell.vocab
