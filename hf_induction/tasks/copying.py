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

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .cell import SEQUENCE, Examples, NameGrammar
from .symbols import SymbolCell, symbol_grammar
from .token_layout import IGNORE, Vocab

TASKS = ("UF", "UB", "NF", "NB")
DEFAULT_SYMBOLS = 32
C_RASP = {"UF": True, "UB": True, "NF": False, "NB": False}

GRAMMARS = symbol_grammar(
    "copy", TASKS, DEFAULT_SYMBOLS, "L >= 2",
    "UF/UB need V >= 3L (the test_long split reaches 3L distinct symbols), "
    "NF/NB V >= L", ("UF_L10", "NB_L16_uniform_V16"))


def repeated_symbols(n: int) -> int:
    """How many distinct symbols a repeating source of length n holds (the study's rule)."""
    return min(n // 2, max(2, n // 3))


def copy_rows(vocab: Vocab, items: np.ndarray, lengths: np.ndarray, backward: bool = False
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The copy layout of sources ``items[:, :n]``: rows ``[BOS, x_1..x_n, SEP, y_1..y_n,
    EOS]`` (y the source, or it reversed), the target and EOS supervised, each padded to the
    longest; (input_ids, labels, source, target), the last two ``[K, max n]``. Lorem's rows
    are the forward layout too."""
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
        y = x[:, ::-1] if backward else x
        source[rows, :n], target[rows, :n] = x, y
        ids[rows, 0] = vocab.bos
        ids[rows, 1 : n + 1] = x
        ids[rows, n + 1] = vocab.sep
        ids[rows, n + 2 : 2 * n + 2] = y
        ids[rows, 2 * n + 2] = vocab.eos
        labels[rows, n + 2 : 2 * n + 3] = ids[rows, n + 2 : 2 * n + 3]
    return ids, labels, source, target


# Copy's unique sources are drawn this many rows first (`CopyCell.first_draw`).
UNIQUE_FIRST_DRAW = 1 << 10


def first_of_permutation_reference(keys: np.ndarray, k: int) -> np.ndarray:
    """The first k columns of each row's ascending order of ``keys`` [rows, V]."""
    return keys.argsort(axis=1)[:, :k]


def first_of_permutation(keys: np.ndarray, k: int) -> np.ndarray:
    """`first_of_permutation_reference`, partitioning first: the k smallest keys of a row,
    then only those sorted (k log k, not V log V, a row). Where a row's k + 1 smallest keys
    are not all distinct (random doubles tie about once in 10^11 rows of 300), the order
    among ties is the sort's: the reference decides the whole chunk."""
    V = keys.shape[1]
    if k >= V:
        return first_of_permutation_reference(keys, k)
    part = np.argpartition(keys, k, axis=1)
    chosen = part[:, :k]
    chosen_keys = np.take_along_axis(keys, chosen, axis=1)
    order = chosen_keys.argsort(axis=1)
    ranked = np.take_along_axis(chosen_keys, order, axis=1)
    boundary = np.take_along_axis(keys, part[:, k:k + 1], axis=1)
    if (ranked[:, 1:] == ranked[:, :-1]).any() or (ranked[:, -1:] == boundary).any():
        return first_of_permutation_reference(keys, k)
    return np.take_along_axis(chosen, order, axis=1)


# S(m, k) for every m counted so far, a row a length (k = 0..m // 2): the rows `arrangements`
# extends on demand. A repeating source is drawn from ratios of these exact counts at every
# length and symbol count up to its own, and its pools are counted from them, so the rows are
# kept, not recomputed. The draw's bound (`limits.MAX_DRAW_COST`: n <= 309) keeps them small
# (3 MB at n = 300).
_ROWS: list[list[int]] = [[1], [0]]


def arrangements(p: int, n: int) -> int:
    """Strings of length n over p given symbols, each used at least twice (exact): p! S(n, p),
    a partition of the places into p blocks of two or more and a symbol for each block. The
    rows of S up to n are kept (`_ROWS`)."""
    if p < 0 or n < 2 * p:
        return 0
    rows = _ROWS
    for m in range(len(rows), n + 1):
        before, row = rows[m - 2], rows[m - 1]
        rows.append([0] + [k * (row[k] if k < len(row) else 0)
                           + (m - 1) * before[k - 1] for k in range(1, m // 2 + 1)])
    return math.factorial(p) * rows[n][p]


@dataclass(frozen=True)
class CopyCell(SymbolCell):
    """One copy cell: task, maximum length L, length law and V symbols."""

    family_param: int = DEFAULT_SYMBOLS
    dataset: str = "copy"

    STREAM_ID: ClassVar[int] = 3
    TASK_NAME: ClassVar[str] = "Copying"
    TAGS: ClassVar[tuple[str, ...]] = ("copying", "length-generalization", "c-rasp", "synthetic")
    C_RASP: ClassVar[dict[str, bool]] = C_RASP
    CARD_SYMBOLS: ClassVar[int] = 12
    COLUMNS: ClassVar[dict[str, str]] = {"source": SEQUENCE, "target": SEQUENCE}
    GRAMMARS: ClassVar[tuple[NameGrammar, ...]] = GRAMMARS

    def symbols_needed(self) -> tuple[int, str]:
        longest = 3 * self.max_len
        if self.unique:
            return longest, f"the test_long split's {longest} distinct symbols at length 3L"
        need = max(2, repeated_symbols(longest))
        return need, f"the test_long split's {need} repeating symbols at length 3L"

    @property
    def backward(self) -> bool:
        return self.task.endswith("B")

    def token_length(self, n: int) -> int:
        return 2 * n + 3

    def draw_cost(self, n: int) -> int:
        # A repeating source's multiplicities are drawn from exact ratios: for each of its p
        # symbols and each count of places left (up to n), a product for each count taken.
        return 0 if self.unique else repeated_symbols(n) * n * n

    # -- pools -----------------------------------------------------------------------
    def pool_size(self, n: int) -> int:
        """Exact: V! / (V - n)! distinct sources, or C(V, p) sets of p symbols times the
        strings over them that use each at least twice."""
        V = self.family_param
        if self.unique:
            return math.perm(V, n) if n <= V else 0
        p = repeated_symbols(n)
        return math.comb(V, p) * arrangements(p, n) if p <= V else 0

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

    def first_draw(self) -> int:
        # A unique source's draw reads nothing but rng.random((size, V)), row after row, so its
        # stream of rows is the same in any chunks: a split of few rows a length (a test split
        # over 100 lengths) draws them in small ones. A repeating source's draw makes further
        # calls per chunk, so its chunks stay the family's.
        return UNIQUE_FIRST_DRAW if self.unique else super().first_draw()

    def _draw(self, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` sources drawn uniformly from the pool of length n (with repeats)."""
        V = self.family_param
        # A random set (or sequence) of symbols: the first columns of a random permutation.
        p = n if self.unique else repeated_symbols(n)
        symbols = first_of_permutation(rng.random((size, V)), p)
        if self.unique:
            return symbols
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
        ids, labels, source, target = copy_rows(self.vocab, items, lengths, self.backward)
        return Examples(lengths, ids, labels, 2 * lengths + 3,
                        {"source": source, "target": target})

    def metrics(self, predictions, labels) -> dict[str, float]:
        from ..metrics import exact_match, token_accuracy

        return {"exact_match": exact_match(predictions, labels, self.family_param),
                "token_accuracy": token_accuracy(predictions, labels, self.family_param)}
