"""Retrieval (induction and anti-induction): find the query in the context, answer its neighbour.

From *Born a Transformer -- Always a Transformer?* (arXiv 2505.21785). A context c_1..c_n over V
symbols and a query symbol q; p_1 < ... < p_t are the positions where c_i = q, never adjacent.

    UR / UL            t = 1, answer c_{p+1} (rightward: induction) / c_{p-1} (leftward)
    NRFirst / NRLast   t >= 2, answer c_{p_1+1} / c_{p_t+1}
    NLFirst / NLLast   t >= 2, answer c_{p_1-1} / c_{p_t-1}

In every non-unique item the first and the last occurrence have different neighbours on the
answer's side (ours: so one rule cannot pass for the other), and both neighbours exist. The
items of one (task, V, n) are drawn uniformly from that set, without replacement.

Row: ``[BOS, c_1..c_n, SEP, q, a]``, only the answer a supervised (causal-LM labels: the
output after reading ``... SEP q`` is a). Columns: ``context``, ``query``, ``answer``.

Config names: ``{task}_L{L}[_{dist}][_V{V}]``, e.g. ``UR_L10``, ``NRLast_L16_uniform_V8``.
"""

from __future__ import annotations

import functools
import math
import re
import string
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..citations import BORN_A_TRANSFORMER, Paper
from .cell import SCALAR, SEQUENCE, Examples, TaskCell
from .layout import IGNORE, Vocab

TASKS = ("UR", "UL", "NRFirst", "NRLast", "NLFirst", "NLLast")
DISTS = ("fixed", "uniform", "s2l")
DEFAULT_SYMBOLS = 16
# Whether the task is expressible in C-RASP[pos], as the study's code labels it: its theory
# predicts length generalisation for a transformer where it is.
C_RASP = {"UR": True, "UL": True, "NRFirst": True, "NLFirst": True,
          "NRLast": False, "NLLast": False}

GRAMMAR = (
    "retrieval config names follow '{task}_L{L}[_{dist}][_V{V}]' with task in "
    f"{{{', '.join(TASKS)}}}, dist in {{{', '.join(DISTS)}}} (default fixed), V symbols "
    f"(default {DEFAULT_SYMBOLS}); L >= 2 for UR/UL and L >= 4 for the N tasks (two "
    "non-adjacent occurrences and their neighbours), V >= 2 for UR/UL and V >= 3 for the N "
    "tasks; examples: UR_L10, NRLast_L16_uniform_V8"
)
_NAME = re.compile(r"^(?P<task>[A-Za-z]+)_L(?P<L>-?\d+)(?:_(?P<dist>[a-z0-9]+))??"
                   r"(?:_V(?P<V>-?\d+))?$")
# Candidate spaces (V^(n+1) contexts and queries) up to this size are enumerated and filtered.
ENUMERATION_LIMIT = 1 << 22


def symbol_dtype(symbols: int):
    return np.uint8 if symbols <= 256 else np.int64


@functools.lru_cache(maxsize=32)
def enumerated_pool(cell: TaskCell, n: int) -> np.ndarray:
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


def symbol_names(count: int) -> list[str]:
    """Letters a..z, A..Z, then x52, x53, ...: names a word-level tokenizer (and an LLM) reads."""
    letters = string.ascii_lowercase + string.ascii_uppercase
    return [letters[i] if i < len(letters) else f"x{i}" for i in range(count)]


@dataclass(frozen=True)
class RetrievalConfig(TaskCell):
    """One retrieval cell: task, maximum context length L, length law and V symbols."""

    task: str
    max_len: int
    dist: str = "fixed"
    symbols: int = DEFAULT_SYMBOLS
    dataset: str = "retrieval"

    COLUMNS: ClassVar[dict[str, str]] = {"context": SEQUENCE, "query": SCALAR, "answer": SCALAR}
    GRAMMAR: ClassVar[str] = GRAMMAR
    PAPER: ClassVar[Paper] = BORN_A_TRANSFORMER
    TEST_SPLIT_LABELS: ClassVar[dict[str, str]] = {"test": "lengths L+1..2L",
                                                   "test_long": "lengths 2L+1..3L"}

    def __post_init__(self):
        if self.dataset != "retrieval":
            raise ValueError(f"a RetrievalConfig is for dataset 'retrieval', not {self.dataset!r}")
        if self.task not in TASKS:
            raise ValueError(f"unknown retrieval task {self.task!r}; {GRAMMAR}")
        if self.dist not in DISTS:
            raise ValueError(f"unknown length distribution {self.dist!r}; {GRAMMAR}")
        if not isinstance(self.max_len, int) or self.max_len < self.min_length:
            raise ValueError(f"bad length L={self.max_len!r}: {self.task} needs "
                             f"L >= {self.min_length}; {GRAMMAR}")
        need = 2 if self.unique else 3
        if not isinstance(self.symbols, int) or self.symbols < need:
            raise ValueError(f"bad V={self.symbols!r}: {self.task} needs V >= {need} symbols; "
                             f"{GRAMMAR}")

    @classmethod
    def parse(cls, dataset: str, name: str) -> RetrievalConfig:
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

    # -- what the task is ------------------------------------------------------------
    @property
    def unique(self) -> bool:
        return self.task.startswith("U")

    @property
    def rightward(self) -> bool:
        return "R" in self.task[:2]

    @property
    def last(self) -> bool:
        return self.task.endswith("Last")

    @property
    def min_length(self) -> int:
        return 2 if self.unique else 4

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

        return example_table([cls(task, 4, symbols=6) for task in TASKS])

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
        return n + 4

    # -- pools -----------------------------------------------------------------------
    def pool_size(self, n: int) -> int:
        """Exact: V queries times the contexts that hold it as the task asks.

        t = 1: the occurrence at one of n - 1 positions that have the neighbour, V - 1 symbols
        elsewhere. t >= 2: C(n - t, t) sets of t non-adjacent positions among the n - 1 that
        have the neighbour, V - 1 symbols at the other n - t positions except that the last
        occurrence's neighbour differs from the first's (V - 2 choices).
        """
        V = self.symbols
        if n < self.min_length:
            return 0
        if self.unique:
            return V * (n - 1) * (V - 1) ** (n - 1)
        return V * sum(math.comb(n - t, t) * (V - 1) ** (n - t - 1) * (V - 2)
                       for t in range(2, n // 2 + 1))

    def stream_key(self, n: int) -> list[int]:
        return [2, TASKS.index(self.task), self.symbols, n]

    def item_width(self, n: int) -> int:
        return n + 1  # the context, then the query

    def valid(self, items: np.ndarray, n: int) -> np.ndarray:
        """Which rows ``[K, n + 1]`` (context, query) are items of this task: ``[K]`` bool."""
        context, query = items[:, :n], items[:, n:]
        at = context == query  # [K, n]
        count = at.sum(axis=1)
        ok = ~(at[:, 1:] & at[:, :-1]).any(axis=1)
        ok &= (at[:, -1] == 0) if self.rightward else (at[:, 0] == 0)
        if self.unique:
            return ok & (count == 1)
        ok &= count >= 2
        first = at.argmax(axis=1)
        last = n - 1 - at[:, ::-1].argmax(axis=1)
        step = 1 if self.rightward else -1
        rows = np.arange(len(items))
        a = context[rows, np.clip(first + step, 0, n - 1)]
        b = context[rows, np.clip(last + step, 0, n - 1)]
        return ok & (a != b)

    def answers(self, items: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """The answer of every item: the neighbour of the first (or last) occurrence."""
        out = np.empty(len(items), dtype=np.int64)
        step = 1 if self.rightward else -1
        for n in np.unique(lengths).tolist():
            rows = np.flatnonzero(lengths == n)
            context, query = items[rows, :n], items[rows, n : n + 1]
            at = context == query
            where = (n - 1 - at[:, ::-1].argmax(axis=1)) if self.last else at.argmax(axis=1)
            out[rows] = context[np.arange(len(rows)), where + step]
        return out

    def stream(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        if self.symbols ** (n + 1) <= ENUMERATION_LIMIT:
            pool = enumerated_pool(self, n)
            return pool[rng.permutation(len(pool))[:count]]
        from .sampling import distinct_draws

        dtype = symbol_dtype(self.symbols)
        return distinct_draws(lambda r, size: self._draw(n, size, r).astype(dtype), count, rng)

    def _draw(self, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` items drawn uniformly from the pool of length n (with repeats)."""
        V = self.symbols
        # The number of occurrences t, weighted by how many items have it.
        ts = [1] if self.unique else list(range(2, n // 2 + 1))
        weights = np.array([float(self._count_t(n, t)) for t in ts])
        t_of = np.asarray(ts)[rng.choice(len(ts), size=size, p=weights / weights.sum())]
        items = np.empty((size, n + 1), dtype=np.int64)
        query = rng.integers(0, V, size=size)
        # Every other symbol is uniform over the V - 1 that are not the query.
        other = rng.integers(0, V - 1, size=(size, n))
        items[:, :n] = other + (other >= query[:, None])
        items[:, n] = query
        for t in ts:
            rows = np.flatnonzero(t_of == t)
            if not len(rows):
                continue
            # t non-adjacent positions among the n - 1 that have the neighbour: t sorted
            # distinct slots among n - t, the i-th moved right by i.
            slots = np.sort(rng.random((len(rows), n - t)).argsort(axis=1)[:, :t], axis=1)
            where = slots + np.arange(t) + (0 if self.rightward else 1)
            items[rows[:, None], where] = query[rows, None]
            if not self.unique:
                step = 1 if self.rightward else -1
                first = items[rows, where[:, 0] + step]
                # The last occurrence's neighbour: uniform over the V - 2 symbols that are
                # neither the query nor the first occurrence's neighbour.
                low, high = np.minimum(first, query[rows]), np.maximum(first, query[rows])
                pick = rng.integers(0, V - 2, size=len(rows))
                pick += pick >= low
                pick += pick >= high
                items[rows, where[:, -1] + step] = pick
        return items

    def _count_t(self, n: int, t: int) -> int:
        V = self.symbols
        if t == 1:
            return (n - 1) * (V - 1) ** (n - 1)
        return math.comb(n - t, t) * (V - 1) ** (n - t - 1) * (V - 2)

    # -- rows ------------------------------------------------------------------------
    def encode(self, items: np.ndarray, lengths: np.ndarray) -> Examples:
        vocab = self.vocab
        k = len(lengths)
        answers = self.answers(items, lengths)
        query = items[np.arange(k), lengths].astype(np.int64)
        t_max = int((lengths + 4).max(initial=0))
        ids = np.full((k, t_max), vocab.pad, dtype=np.int64)
        labels = np.full((k, t_max), IGNORE, dtype=np.int64)
        context = np.zeros((k, max(int(lengths.max(initial=0)), 0)), dtype=np.int64)
        for n in np.unique(lengths).tolist():
            rows = np.flatnonzero(lengths == n)
            c = items[rows, :n].astype(np.int64)
            context[rows, :n] = c
            ids[rows, 0] = vocab.bos
            ids[rows, 1 : n + 1] = c
            ids[rows, n + 1] = vocab.sep
            ids[rows, n + 2] = query[rows]
            ids[rows, n + 3] = answers[rows]
            labels[rows, n + 3] = answers[rows]
        return Examples(lengths, ids, labels, lengths + 4,
                        {"context": context, "query": query, "answer": answers})

    def metrics(self, predictions, labels) -> dict[str, float]:
        from ..metrics import token_accuracy

        return {"accuracy": token_accuracy(predictions, labels, self.symbols)}
