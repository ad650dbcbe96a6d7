"""What the second study's families (retrieval, copy) share: tasks over V symbols, one name
grammar ``{task}_L{L}[_{dist}][_V{V}]``, test splits at L+1..2L and 2L+1..3L, and streams
that enumerate small pools and draw large ones uniformly."""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..citations import BORN_A_TRANSFORMER, Paper
from .cell import TaskCell
from .limits import FIRST_CHUNK, check_length, check_vocab
from .sampling import distinct_draws, generate
from .token_layout import IGNORE, Vocab

DISTS = ("fixed", "uniform", "s2l")
# Candidate spaces (V ** item width) up to this size are enumerated and filtered.
ENUMERATION_LIMIT = 1 << 22
_NAME = re.compile(r"^(?P<task>[A-Za-z]+)_L(?P<L>-?[0-9]+)(?:_(?P<dist>[a-z0-9]+))??"
                   r"(?:_V(?P<V>-?[0-9]+))?$")


def symbol_names(count: int) -> list[str]:
    """Letters a..z, A..Z, then x52, x53, ...: names a word-level tokenizer (and an LLM) reads."""
    letters = string.ascii_lowercase + string.ascii_uppercase
    return [letters[i] if i < len(letters) else f"x{i}" for i in range(count)]


def symbol_dtype(symbols: int):
    return np.uint8 if symbols <= 256 else np.int64


@functools.lru_cache(maxsize=32)
def enumerated_pool(cell: SymbolTaskCell, n: int) -> np.ndarray:
    """Every item of length n of a small pool, in the order of their codes (base V, most
    significant first): all candidate rows, filtered by ``cell.valid``. Cached: every split of
    every size draws from the same pool."""
    width = cell.item_width(n)
    V = cell.symbols
    codes = np.arange(V**width, dtype=np.int64)
    digits = np.empty((len(codes), width), dtype=symbol_dtype(V))
    for j in range(width - 1, -1, -1):
        digits[:, j] = codes % V
        codes //= V
    pool = digits[cell.valid(digits, n)]
    pool.setflags(write=False)
    return pool


@dataclass(frozen=True)
class SymbolTaskCell(TaskCell):
    """A cell of a family of tasks over V symbols; subclasses set the class variables below
    and implement ``valid``, ``_draw``, ``pool_size``, ``encode``, ``metrics`` and
    ``check_symbols``."""

    task: str
    max_len: int
    dist: str = "fixed"
    symbols: int = 0
    dataset: str = ""

    FAMILY: ClassVar[str] = ""
    # Names the family in its streams' seeds: fixed forever, or every item would change.
    STREAM_ID: ClassVar[int] = 0
    TASKS: ClassVar[tuple[str, ...]] = ()
    DEFAULT_SYMBOLS: ClassVar[int] = 0
    # Whether each task is expressible in C-RASP[pos], as the study's code labels it: its
    # theory predicts a transformer length-generalises where it is.
    C_RASP: ClassVar[dict[str, bool]] = {}
    # The V of the example rows the dataset card shows.
    CARD_SYMBOLS: ClassVar[int] = 6
    PAPER: ClassVar[Paper] = BORN_A_TRANSFORMER
    TEST_SPLIT_LABELS: ClassVar[dict[str, str]] = {"test": "lengths L+1..2L",
                                                   "test_long": "lengths 2L+1..3L"}
    LENGTH_SPAN: ClassVar[int] = 3

    def __post_init__(self):
        if self.dataset != self.FAMILY:
            raise ValueError(f"a {type(self).__name__} is for dataset {self.FAMILY!r}, "
                             f"not {self.dataset!r}")
        if self.task not in self.TASKS:
            raise ValueError(f"unknown {self.FAMILY} task {self.task!r}; {self.GRAMMAR}")
        if self.dist not in DISTS:
            raise ValueError(f"unknown length distribution {self.dist!r}; {self.GRAMMAR}")
        if not isinstance(self.max_len, int) or self.max_len < self.min_length:
            raise ValueError(f"bad length L={self.max_len!r}: {self.task} needs "
                             f"L >= {self.min_length}; {self.GRAMMAR}")
        check_length(self)
        need, why = self.symbols_needed()
        if not isinstance(self.symbols, int) or self.symbols < need:
            raise ValueError(f"bad V={self.symbols!r}: {self} needs V >= {need} ({why}); "
                             f"{self.GRAMMAR}")
        check_vocab(self, "V")

    def symbols_needed(self) -> tuple[int, str]:
        """The fewest symbols the task's items need at every split, and why."""
        raise NotImplementedError

    @classmethod
    def parse(cls, dataset: str, name: str) -> SymbolTaskCell:
        m = cls.match_name(_NAME, name)
        symbols = cls.DEFAULT_SYMBOLS if m["V"] is None else int(m["V"])
        return cls(m["task"], int(m["L"]), m["dist"] or "fixed", symbols, dataset)

    def __str__(self) -> str:
        name = f"{self.task}_L{self.max_len}"
        if self.dist != "fixed":
            name += f"_{self.dist}"
        if self.symbols != self.DEFAULT_SYMBOLS:
            name += f"_V{self.symbols}"
        return name

    @property
    def unique(self) -> bool:
        """U* tasks: one occurrence (retrieval) or distinct symbols (copy)."""
        return self.task.startswith("U")

    @property
    def test_splits(self) -> dict[str, tuple[int, ...]]:
        L = self.max_len
        return {"test": tuple(range(L + 1, 2 * L + 1)),
                "test_long": tuple(range(2 * L + 1, 3 * L + 1))}

    @property
    def vocab(self) -> Vocab:
        return Vocab(self.symbols)

    def symbol_names(self) -> list[str]:
        return symbol_names(self.symbols)

    def describe(self) -> dict[str, str]:
        return {"task": self.task, "symbols": str(self.symbols),
                "C-RASP[pos]": "yes" if self.C_RASP[self.task] else "no"}

    @classmethod
    def layout_table(cls) -> str:
        return example_table([cls(task, 4, symbols=cls.CARD_SYMBOLS, dataset=cls.FAMILY)
                              for task in cls.TASKS])

    @property
    def variant(self) -> str:
        return f"V{self.symbols}"

    @property
    def kind(self) -> str:
        return self.task

    @property
    def family_param(self) -> int:
        return self.symbols

    def stream_key(self, n: int) -> list[int]:
        return [self.STREAM_ID, self.TASKS.index(self.task), self.symbols, n]

    def valid(self, items: np.ndarray, n: int) -> np.ndarray:
        """Which rows ``[K, item_width(n)]`` are items of this task: ``[K]`` bool."""
        raise NotImplementedError

    def _draw(self, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` items drawn uniformly from the pool of length n (with repeats)."""
        raise NotImplementedError

    def first_draw(self) -> int:
        """The first chunk `distinct_draws` draws (`limits.FIRST_CHUNK` unless a family's draw
        is the same stream in any chunks, as copy's unique sources are)."""
        return FIRST_CHUNK

    def stream(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        if self.symbols ** self.item_width(n) <= ENUMERATION_LIMIT:
            pool = enumerated_pool(self, n)
            return pool[rng.permutation(len(pool))[:count]]
        dtype = symbol_dtype(self.symbols)
        return distinct_draws(lambda r, size: self._draw(n, size, r).astype(dtype), count, rng,
                              first=self.first_draw())


def example_table(cells: list[TaskCell], split: str = "validation") -> str:
    """One row of each cell (its first ``split`` example) as tokens, in a markdown table: what
    the family's encoder really writes, for its dataset card."""
    rows = ["| config | input_ids | labels |", "|---|---|---|"]
    for cell in cells:
        ex = generate(cell, split, None, seed=0)
        vocab = cell.vocab
        names = {i: name for i, name in enumerate(cell.symbol_names())}
        names |= {vocab.bos: "BOS", vocab.sep: "SEP", vocab.eos: "EOS", vocab.pad: "PAD",
                  IGNORE: "-100"}
        t = int(ex.token_lengths[0])
        ids, labels = (" ".join(names[i] for i in row[0, :t].tolist())
                       for row in (ex.input_ids, ex.labels))
        rows.append(f"| `{cell}` | {ids} | {labels} |")
    return "\n".join(rows)
