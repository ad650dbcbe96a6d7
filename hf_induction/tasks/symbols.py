"""What the second study's families (retrieval, copy) share: tasks over V symbols (the family
parameter, ``_V{V}`` in a name), test splits at L+1..2L and 2L+1..3L, and streams that
enumerate small pools and draw large ones uniformly."""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..citations import BORN_A_TRANSFORMER, Paper
from .cell import DISTS, LongerSplitsCell, NameGrammar, TaskCell
from .limits import FIRST_CHUNK, check_length, check_vocab
from .sampling import distinct_draws, generate
from .token_layout import IGNORE, Vocab

# Candidate spaces (V ** item width) up to this size are enumerated and filtered.
ENUMERATION_LIMIT = 1 << 22


def symbol_names(count: int) -> list[str]:
    """Letters a..z, A..Z, then x52, x53, ...: names a word-level tokenizer (and an LLM) reads."""
    letters = string.ascii_lowercase + string.ascii_uppercase
    return [letters[i] if i < len(letters) else f"x{i}" for i in range(count)]


def symbol_dtype(symbols: int):
    return np.uint8 if symbols <= 256 else np.int64


@functools.lru_cache(maxsize=32)
def enumerated_pool(cell: SymbolCell, n: int) -> np.ndarray:
    """Every item of length n of a small pool, in the order of their codes (base V, most
    significant first): all candidate rows, filtered by ``cell.valid``. Cached: every split of
    every size draws from the same pool."""
    width = cell.item_width(n)
    V = cell.family_param
    codes = np.arange(V**width, dtype=np.int64)
    digits = np.empty((len(codes), width), dtype=symbol_dtype(V))
    for j in range(width - 1, -1, -1):
        digits[:, j] = codes % V
        codes //= V
    pool = digits[cell.valid(digits, n)]
    pool.setflags(write=False)
    return pool


def symbol_grammar(dataset: str, tasks: tuple[str, ...], default: int, rules: str,
                   param_rule: str, examples: tuple[str, ...]) -> tuple[NameGrammar]:
    """A family over V symbols names its cells ``{task}_L{L}[_{dist}][_V{V}]``."""
    return (NameGrammar(dataset, "task", tasks, DISTS, rules, examples, letter="V", symbol="V",
                        default=default, param_name="V symbols", param_rule=param_rule),)


@dataclass(frozen=True)
class SymbolCell(LongerSplitsCell):
    """A cell of a family of tasks over V symbols; subclasses set the class variables below
    and implement ``valid``, ``_draw``, ``pool_size``, ``encode``, ``metrics`` and
    ``symbols_needed``."""

    task: str
    max_len: int
    dist: str = "fixed"
    family_param: int = 0
    dataset: str = ""

    # Names the family in its streams' seeds: fixed forever, or every item would change.
    STREAM_ID: ClassVar[int] = 0
    # Whether each task is expressible in C-RASP[pos], as the study's code labels it: its
    # theory predicts a transformer length-generalises where it is.
    C_RASP: ClassVar[dict[str, bool]] = {}
    # The V of the example rows the dataset card shows.
    CARD_SYMBOLS: ClassVar[int] = 6
    PAPER: ClassVar[Paper] = BORN_A_TRANSFORMER

    def __post_init__(self):
        self.check_kind_and_length(self.task)
        check_length(self)
        need, why = self.symbols_needed()
        if not isinstance(self.family_param, int) or self.family_param < need:
            raise ValueError(f"bad V={self.family_param!r}: {self} needs V >= {need} ({why}); "
                             f"{self.grammar.text}")
        check_vocab(self)

    def symbols_needed(self) -> tuple[int, str]:
        """The fewest symbols the task's items need at every split, and why."""
        raise NotImplementedError

    @property
    def unique(self) -> bool:
        """U* tasks: one occurrence (retrieval) or distinct symbols (copy)."""
        return self.task.startswith("U")

    @property
    def vocab(self) -> Vocab:
        return Vocab(self.family_param)

    def symbol_names(self) -> list[str]:
        return symbol_names(self.family_param)

    def describe(self) -> dict[str, str]:
        return {"task": self.task, "symbols": str(self.family_param),
                "C-RASP[pos]": "yes" if self.C_RASP[self.task] else "no"}

    @classmethod
    def layout_table(cls) -> str:
        (grammar,) = cls.GRAMMARS
        return example_table([cls(task, 4, family_param=cls.CARD_SYMBOLS)
                              for task in grammar.kinds])

    @property
    def variant(self) -> str:
        return f"V{self.family_param}"

    def stream_key(self, n: int) -> list[int]:
        return [self.STREAM_ID, self.grammar.kinds.index(self.task), self.family_param, n]

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
        if self.family_param ** self.item_width(n) <= ENUMERATION_LIMIT:
            pool = enumerated_pool(self, n)
            return pool[rng.permutation(len(pool))[:count]]
        dtype = symbol_dtype(self.family_param)
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
