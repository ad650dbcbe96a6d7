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
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .cell import SCALAR, SEQUENCE, Examples, NameGrammar
from .limits import MAX_TOKENS, MAX_VOCAB
from .symbols import SymbolCell, symbol_grammar
from .token_layout import IGNORE

TASKS = ("UR", "UL", "NRFirst", "NRLast", "NLFirst", "NLLast")
DEFAULT_SYMBOLS = 16
C_RASP = {"UR": True, "UL": True, "NRFirst": True, "NLFirst": True,
          "NRLast": False, "NLLast": False}

GRAMMARS = symbol_grammar(
    "retrieval", TASKS, DEFAULT_SYMBOLS,
    "L >= 2 for UR/UL and L >= 4 for the N tasks (two non-adjacent occurrences and their "
    f"neighbours) while a row at length 3L has at most {MAX_TOKENS} tokens",
    f"V >= 2 for UR/UL and V >= 3 for the N tasks, V <= {MAX_VOCAB - 4}",
    ("UR_L10", "NRLast_L16_uniform_V8"))


@functools.lru_cache(maxsize=4)
def _fibonacci_sums(x: int, n_max: int) -> tuple[int, ...]:
    g = [1, x]
    for _ in range(2, n_max + 1):
        g.append(x * (g[-1] + g[-2]))
    return tuple(g)


def fibonacci_sums(x: int, n: int) -> tuple[int, ...]:
    """g_0..g_m (m >= n) with g_m = sum over t of C(m - t, t) x^(m - t): the recurrence
    g_m = x (g_(m-1) + g_(m-2)), g_0 = 1, g_1 = x (a Fibonacci polynomial; t = 0 and 1 are the
    terms the N tasks' pool leaves out). One sweep, kept for the cell's other lengths: summing
    the terms took a second a length at n = 6,000 and hours over a split."""
    return _fibonacci_sums(x, max(n, 1 << max(n - 1, 1).bit_length()))


@dataclass(frozen=True)
class RetrievalCell(SymbolCell):
    """One retrieval cell: task, maximum context length L, length law and V symbols."""

    family_param: int = DEFAULT_SYMBOLS
    dataset: str = "retrieval"

    STREAM_ID: ClassVar[int] = 2
    TASK_NAME: ClassVar[str] = "Retrieval"
    TAGS: ClassVar[tuple[str, ...]] = ("retrieval", "induction-heads", "length-generalization",
                                       "c-rasp", "synthetic")
    C_RASP: ClassVar[dict[str, bool]] = C_RASP
    COLUMNS: ClassVar[dict[str, str]] = {"context": SEQUENCE, "query": SCALAR, "answer": SCALAR}
    GRAMMARS: ClassVar[tuple[NameGrammar, ...]] = GRAMMARS

    def symbols_needed(self) -> tuple[int, str]:
        if self.unique:
            return 2, "the query and another symbol"
        return 3, "the query and two different answers"

    # -- what the task is ------------------------------------------------------------
    @property
    def rightward(self) -> bool:
        return "R" in self.task[:2]

    @property
    def last(self) -> bool:
        return self.task.endswith("Last")

    @property
    def min_length(self) -> int:
        return 2 if self.unique else 4

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
        V = self.family_param
        if n < self.min_length:
            return 0
        if self.unique:
            return V * (n - 1) * (V - 1) ** (n - 1)
        # The sum over t in closed form (`fibonacci_sums`); _counts holds its terms.
        x = V - 1
        return V * (V - 2) * (fibonacci_sums(x, n)[n] - x ** n - (n - 1) * x ** (n - 1)) // x

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

    def _draw(self, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` items drawn uniformly from the pool of length n (with repeats)."""
        V = self.family_param
        # The number of occurrences t, weighted by how many items have it.
        ts, counts = self._counts(n)
        # Counts beyond a float (15^300) are divided by one power of two first: the weights'
        # ratios are unchanged, and they are the same floats wherever the counts fit one.
        scale = 1 << max(0, max(counts).bit_length() - 1000)
        weights = np.array([c / scale for c in counts])
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

    @functools.lru_cache(maxsize=4)  # noqa: B019 (cells are few and frozen)
    def _counts(self, n: int) -> tuple[list[int], list[int]]:
        """(the numbers t of occurrences, how many items of length n have each) (exact): t = 1
        for UR/UL, (n - 1) (V - 1)^(n - 1); t = 2..n // 2 for the N tasks, C(n - t, t)
        (V - 1)^(n - t - 1) (V - 2), the pool's docstring's count (without the query's V).

        The N tasks' counts are built from the largest t down, the power of V - 1 and the
        binomial each updated from the last by small factors: at n = 6,000 a pow and a
        binomial a term took minutes a length."""
        V = self.family_param
        if self.unique:
            return [1], [(n - 1) * (V - 1) ** (n - 1)]
        ts = list(range(2, n // 2 + 1))
        if not ts:
            return [], []
        top = ts[-1]
        power, binomial = (V - 1) ** (n - top - 1), math.comb(n - top, top)
        counts = []
        for t in reversed(ts):
            counts.append(binomial * power * (V - 2))
            # t -> t - 1: C(m + 1, k - 1) = C(m, k) k (m + 1) / ((m - k + 1)(m - k + 2)),
            # with m = n - t, k = t.
            m, k = n - t, t
            binomial = binomial * k * (m + 1) // ((m - k + 1) * (m - k + 2))
            power *= V - 1
        return ts, counts[::-1]

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

        return {"accuracy": token_accuracy(predictions, labels, self.family_param)}
