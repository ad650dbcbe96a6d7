"""The prompts attention heads are read on, and the positions they are scored at.

A head is scored at a position t of a row whose NEXT token is supervised (the output at t
predicts ``labels[t + 1]``), and only where the token at t has exactly one earlier occurrence
s < t, with s >= 1 and s + 1 < t: then s - 1 (what preceded it, an anti-induction head's
target), s + 1 (what followed it, an induction head's) and t - 1 (the previous token) are
three positions, none of them t. The rule is the same for every task (no per-task branch):
on copy UF the target y_i at t = n + 1 + i finds x_i at s = i and the next target at s + 1;
on UB it finds x_(n+1-i) and the next target at s - 1; on retrieval UR / UL the query finds
its one occurrence in the context and the answer beside it. Rows where a symbol repeats (NF,
NB, the N retrieval tasks) keep only the positions whose symbol is unique so far, often none.

Rows of one `HeadPrompts` share one length, so they batch without padding (a padded row would
need an attention mask that every model reads the same way, and positions that move).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..tasks.cell import TaskCell
from ..tasks.sampling import generate
from ..tasks.token_layout import IGNORE


@dataclass(frozen=True)
class HeadPrompts:
    """Rows of one length and their scored positions: position p is (rows[p], t[p]), whose
    symbol's unique earlier occurrence is s[p] (module docstring)."""

    input_ids: torch.Tensor  # [N, T] long
    labels: torch.Tensor  # [N, T] causal-LM labels, IGNORE where unsupervised
    rows: torch.Tensor  # [P] long
    t: torch.Tensor  # [P] long
    s: torch.Tensor  # [P] long
    # Positions whose next token is supervised, scored or not: n_positions of them passed the
    # rule, the rest were dropped (a repeated symbol, or no earlier occurrence).
    n_candidates: int = 0

    def __post_init__(self) -> None:
        if self.input_ids.ndim != 2 or self.labels.shape != self.input_ids.shape:
            raise ValueError(f"input_ids {tuple(self.input_ids.shape)} and labels "
                             f"{tuple(self.labels.shape)} must be one [N, T] shape")
        if not self.rows.shape == self.t.shape == self.s.shape or self.rows.ndim != 1:
            raise ValueError("rows, t and s must be index vectors of one length")

    def __len__(self) -> int:
        return len(self.input_ids)

    @property
    def n_positions(self) -> int:
        return len(self.t)


def scored_positions(input_ids: np.ndarray,
                     labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(rows, t, s, n_candidates)`` of rows ``[N, T]`` by the module's rule, in row-major
    order: every pair of equal tokens is compared at once ([N, T, T] booleans; T is short)."""
    ids = np.asarray(input_ids)
    T = ids.shape[1]
    earlier = (ids[:, :, None] == ids[:, None, :]) & np.tri(T, T, -1, dtype=bool)
    count = earlier.sum(axis=2)  # [N, T] earlier occurrences of the token at t
    s = earlier.argmax(axis=2)  # the first of them (the only one where count == 1)
    next_supervised = np.zeros_like(count, dtype=bool)
    next_supervised[:, :-1] = np.asarray(labels)[:, 1:] != IGNORE
    t = np.arange(T)[None, :]
    keep = next_supervised & (count == 1) & (s >= 1) & (s + 1 < t)
    rows, ts = np.nonzero(keep)
    return rows, ts, s[rows, ts], int(next_supervised.sum())


def _long(array) -> torch.Tensor:
    return torch.as_tensor(np.asarray(array, dtype=np.int64))


def _prompts(input_ids: np.ndarray, labels: np.ndarray) -> HeadPrompts:
    rows, t, s, candidates = scored_positions(input_ids, labels)
    return HeadPrompts(_long(input_ids), _long(labels), _long(rows), _long(t), _long(s),
                       candidates)


def prompts_from_cell(cell: TaskCell, n: int, seed: int = 0,
                      split: str = "validation") -> list[HeadPrompts]:
    """``n`` rows of a cell's split (fewer if it holds fewer), one `HeadPrompts` per token
    length, shortest first.

    ``seed`` is the data seed `generate` takes (the one the model was trained with, so that
    validation rows are ones it never saw) and picks the rows: a validation split is fixed in
    size and ordered by length, so ``n`` of its rows are drawn at random rather than the
    first ``n`` (which would all be of the shortest length).
    """
    if n < 1:
        raise ValueError(f"n must be a positive number of rows, got {n}")
    ex = generate(cell, split, n, seed)
    pick = np.arange(len(ex))
    if len(ex) > n:
        pick = np.sort(np.random.default_rng(seed).choice(len(ex), size=n, replace=False))
    out = []
    for width in np.unique(ex.token_lengths[pick]).tolist():
        rows = pick[ex.token_lengths[pick] == width]
        out.append(_prompts(ex.input_ids[rows, :width], ex.labels[rows, :width]))
    return out


def repeated_tokens(length: int) -> int:
    """The tokens of one repeated-sequence prompt of k = ``length``: BOS, then r_1..r_k twice."""
    return 2 * length + 1


def repeated_random_prompts(symbol_ids, length: int, n: int, seed: int,
                            bos_id: int) -> HeadPrompts:
    """TransformerLens' induction prompts: ``[BOS, r_1..r_k, r_1..r_k]`` with k = ``length``,
    ``n`` rows; r is drawn without repetition when k <= len(symbol_ids), else uniformly.

    Every second-half position t = k + i whose next token exists (i = 1..k-1) is scored
    with s = i, its copy in the first half (the unique earlier occurrence when r does not
    repeat), and the tokens those positions predict, r_2..r_k of the second half, are the
    supervised labels: r_1 of the second half follows r_k, which no head can predict.
    """
    symbols = np.asarray(symbol_ids, dtype=np.int64)
    if length < 2 or n < 1 or symbols.ndim != 1 or len(symbols) < 2:
        raise ValueError("repeated prompts need length >= 2, n >= 1 and two or more symbols "
                         f"(got length {length}, n {n}, {symbols.size} symbols)")
    rng = np.random.default_rng(seed)
    if length <= len(symbols):
        r = symbols[rng.random((n, len(symbols))).argsort(axis=1)[:, :length]]
    else:
        r = symbols[rng.integers(0, len(symbols), size=(n, length))]
    ids = np.concatenate([np.full((n, 1), bos_id, dtype=np.int64), r, r], axis=1)
    labels = np.full_like(ids, IGNORE)
    labels[:, length + 2 :] = ids[:, length + 2 :]
    i = np.arange(1, length)
    rows = np.repeat(np.arange(n), len(i))
    s = np.tile(i, n)
    return HeadPrompts(_long(ids), _long(labels), _long(rows), _long(s + length), _long(s),
                       n * (length - 1))
