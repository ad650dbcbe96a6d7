"""Copying: reproduce a sequence forward or backward, with distinct or repeating symbols.

From *Born a Transformer -- Always a Transformer?* (arXiv 2505.21785). A source x_1..x_n over V
symbols:

    UF / UB   symbols all distinct; target x_1..x_n (forward) / x_n..x_1 (backward)
    NF / NB   symbols repeat, as the study's generator makes them: exactly
              p = min(n // 2, max(2, n // 3)) distinct symbols, each used at least twice;
              target forward / backward

The study draws its NF/NB sources with that rule above length 5 (a simpler one below); here
the rule holds at every length, and the sources of one (task, V, n) are drawn uniformly from
the set it defines (exact multiplicities from a count of the set, then a uniform arrangement),
without replacement.

Row: ``[BOS, x_1..x_n, SEP, y_1..y_n, EOS]``, the target and EOS supervised (causal-LM labels:
``labels`` is ``input_ids`` with the source and SEP masked). Columns: ``source``, ``target``.

Config names: ``{task}_L{L}[_{dist}][_V{V}]``, e.g. ``UF_L10``, ``NB_L16_uniform_V8``.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..citations import BORN_A_TRANSFORMER, Paper
from .cell import SEQUENCE, Examples, TaskCell
from .layout import IGNORE, Vocab
from .retrieval import DISTS, ENUMERATION_LIMIT, enumerated_pool, symbol_dtype, symbol_names

TASKS = ("UF", "UB", "NF", "NB")
DEFAULT_SYMBOLS = 32
C_RASP = {"UF": True, "UB": True, "NF": False, "NB": False}

GRAMMAR = (
    "copy config names follow '{task}_L{L}[_{dist}][_V{V}]' with task in "
    f"{{{', '.join(TASKS)}}}, dist in {{{', '.join(DISTS)}}} (default fixed), V symbols "
    f"(default {DEFAULT_SYMBOLS}); L >= 2; UF/UB need V >= 3L (the test_long split reaches "
    "3L distinct symbols), NF/NB V >= L; examples: UF_L10, NB_L16_uniform_V16"
)
_NAME = re.compile(r"^(?P<task>[A-Za-z]+)_L(?P<L>-?\d+)(?:_(?P<dist>[a-z0-9]+))??"
                   r"(?:_V(?P<V>-?\d+))?$")


def repeated_symbols(n: int) -> int:
    """How many distinct symbols a repeating source of length n holds (the study's rule)."""
    return min(n // 2, max(2, n // 3))


@functools.cache
def arrangements(p: int, n: int) -> int:
    """Strings of length n over p given symbols, each used at least twice (exact).

    a(k, m) = sum over j >= 2 of C(m, j) a(k - 1, m - j): the k-th symbol takes j of the m
    places."""
    if p == 0:
        return 1 if n == 0 else 0
    return sum(math.comb(n, j) * arrangements(p - 1, n - j) for j in range(2, n - 2 * (p - 1) + 1))


@dataclass(frozen=True)
class CopyConfig(TaskCell):
    """One copy cell: task, maximum length L, length law and V symbols."""

    task: str
    max_len: int
    dist: str = "fixed"
    symbols: int = DEFAULT_SYMBOLS
    dataset: str = "copy"

    COLUMNS: ClassVar[dict[str, str]] = {"source": SEQUENCE, "target": SEQUENCE}
    GRAMMAR: ClassVar[str] = GRAMMAR
    PAPER: ClassVar[Paper] = BORN_A_TRANSFORMER
    TEST_SPLIT_LABELS: ClassVar[dict[str, str]] = {"test": "lengths L+1..2L",
                                                   "test_long": "lengths 2L+1..3L"}

    def __post_init__(self):
        if self.dataset != "copy":
            raise ValueError(f"a CopyConfig is for dataset 'copy', not {self.dataset!r}")
        if self.task not in TASKS:
            raise ValueError(f"unknown copy task {self.task!r}; {GRAMMAR}")
        if self.dist not in DISTS:
            raise ValueError(f"unknown length distribution {self.dist!r}; {GRAMMAR}")
        if not isinstance(self.max_len, int) or self.max_len < 2:
            raise ValueError(f"bad length L={self.max_len!r}: copy needs L >= 2; {GRAMMAR}")
        longest = 3 * self.max_len
        need = longest if self.unique else max(2, repeated_symbols(longest))
        if not isinstance(self.symbols, int) or self.symbols < need:
            what = (f"{longest} distinct symbols at length 3L" if self.unique
                    else f"{need} distinct symbols at length 3L")
            raise ValueError(f"bad V={self.symbols!r}: {self}'s test_long split needs {what}, "
                             f"so V >= {need}; {GRAMMAR}")

    @classmethod
    def parse(cls, dataset: str, name: str) -> CopyConfig:
        m = _NAME.match(name) if isinstance(name, str) else None
        if m is None:
            raise ValueError(f"cannot parse config name {name!r}; {GRAMMAR}")
        symbols = DEFAULT_SYMBOLS if m["V"] is None else int(m["V"])
        return cls(m["task"], int(m["L"]), m["dist"] or "fixed", symbols, dataset)

    def __str__(self) -> str:
        name = f"{self.task}_L{self.max_len}"
        if self.dist != "fixed":
            name += f"_{self.dist}"
        if self.symbols != DEFAULT_SYMBOLS:
            name += f"_V{self.symbols}"
        return name

    @property
    def unique(self) -> bool:
        return self.task.startswith("U")

    @property
    def backward(self) -> bool:
        return self.task.endswith("B")

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
                "C-RASP[pos]": "yes" if C_RASP[self.task] else "no"}

    @classmethod
    def layout_table(cls) -> str:
        from .cell import example_table

        return example_table([cls(task, 4, symbols=12) for task in TASKS])

    @property
    def variant(self) -> str:
        return f"V{self.symbols}"

    @property
    def kind(self) -> str:
        return self.task

    @property
    def family_param(self) -> int:
        return self.symbols

    def token_length(self, n: int) -> int:
        return 2 * n + 3

    # -- pools -----------------------------------------------------------------------
    def pool_size(self, n: int) -> int:
        """Exact: V! / (V - n)! distinct sources, or C(V, p) sets of p symbols times the
        strings over them that use each at least twice."""
        V = self.symbols
        if self.unique:
            return math.perm(V, n) if n <= V else 0
        p = repeated_symbols(n)
        return math.comb(V, p) * arrangements(p, n) if p <= V else 0

    def stream_key(self, n: int) -> list[int]:
        return [3, TASKS.index(self.task), self.symbols, n]

    def valid(self, items: np.ndarray, n: int) -> np.ndarray:
        """Which rows ``[K, n]`` are sources of this task: ``[K]`` bool."""
        ordered = np.sort(items, axis=1)
        same = ordered[:, 1:] == ordered[:, :-1]  # [K, n-1]: a symbol continues
        if self.unique:
            return ~same.any(axis=1)
        # Each symbol used at least twice: every place has an equal neighbour once sorted.
        pad = np.zeros((len(items), 1), dtype=bool)
        paired = (np.hstack([pad, same]) | np.hstack([same, pad])).all(axis=1)
        return paired & (n - same.sum(axis=1) == repeated_symbols(n))

    def stream(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        if self.symbols**n <= ENUMERATION_LIMIT:
            pool = enumerated_pool(self, n)
            return pool[rng.permutation(len(pool))[:count]]
        from .sampling import distinct_draws

        dtype = symbol_dtype(self.symbols)
        return distinct_draws(lambda r, size: self._draw(n, size, r).astype(dtype), count, rng)

    def _draw(self, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` sources drawn uniformly from the pool of length n (with repeats)."""
        V = self.symbols
        # A random set (or sequence) of symbols: the first columns of a random permutation.
        chosen = rng.random((size, V)).argsort(axis=1)
        if self.unique:
            return chosen[:, :n]
        p = repeated_symbols(n)
        symbols = chosen[:, :p]
        # Multiplicities m_1..m_p (each >= 2, summing to n), drawn so that every string is
        # equally likely: P(m_k = j | m places left) = C(m, j) a(p - k, m - j) / a(p - k + 1, m).
        counts = np.zeros((size, p), dtype=np.int64)
        left = np.full(size, n)
        for k in range(p - 1):
            rest = p - k - 1
            for m in np.unique(left).tolist():
                rows = np.flatnonzero(left == m)
                js = np.arange(2, m - 2 * rest + 1)
                exact = [math.comb(m, j) * arrangements(rest, m - j) for j in js.tolist()]
                total = sum(exact)
                # Python's int division gives the float of a ratio of huge ints exactly.
                counts[rows, k] = rng.choice(js, size=len(rows), p=[w / total for w in exact])
            left = left - counts[:, k]
        counts[:, -1] = left
        # The multiset, then a uniform arrangement of it.
        # Every row's counts sum to n, so one repeat over all rows lays the rows out.
        flat = np.repeat(np.tile(np.arange(p), size), counts.ravel()).reshape(size, n)
        order = rng.random((size, n)).argsort(axis=1)
        return np.take_along_axis(symbols, np.take_along_axis(flat, order, axis=1), axis=1)

    # -- rows ------------------------------------------------------------------------
    def encode(self, items: np.ndarray, lengths: np.ndarray) -> Examples:
        vocab = self.vocab
        k = len(lengths)
        width = int(lengths.max(initial=0))
        t_max = 2 * width + 3
        ids = np.full((k, t_max), vocab.pad, dtype=np.int64)
        labels = np.full((k, t_max), IGNORE, dtype=np.int64)
        source = np.zeros((k, width), dtype=np.int64)
        target = np.zeros((k, width), dtype=np.int64)
        for n in np.unique(lengths).tolist():
            rows = np.flatnonzero(lengths == n)
            x = items[rows, :n].astype(np.int64)
            y = x[:, ::-1] if self.backward else x
            source[rows, :n], target[rows, :n] = x, y
            ids[rows, 0] = vocab.bos
            ids[rows, 1 : n + 1] = x
            ids[rows, n + 1] = vocab.sep
            ids[rows, n + 2 : 2 * n + 2] = y
            ids[rows, 2 * n + 2] = vocab.eos
            labels[rows, n + 2 : 2 * n + 3] = ids[rows, n + 2 : 2 * n + 3]
        return Examples(lengths, ids, labels, 2 * lengths + 3,
                        {"source": source, "target": target})

    def metrics(self, predictions, labels) -> dict[str, float]:
        from ..metrics import exact_match, token_accuracy

        return {"exact_match": exact_match(predictions, labels, self.symbols),
                "token_accuracy": token_accuracy(predictions, labels, self.symbols)}
