"""The token layout shared by data, models, metrics and the search.

Element id k is token id k; then BOS = |G|, SEP = |G|+1, EOS = |G|+2, PAD = |G|+3.
Labels are ALIGNED: ``labels[i]`` is the target of the model's output at position i,
-100 where nothing is supervised; nothing downstream shifts them.

    acot:     input_ids = [BOS, g_1..g_n]                labels = [-100, s_1..s_n]
    outcome:  input_ids = [BOS, g_1..g_n, SEP]           labels = [-100 x (n+1), s_n]
    cot:      input_ids = [BOS, g_1..g_n, SEP, s_1..s_n] labels = [-100 x (n+1), s_1..s_n, EOS]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

IGNORE = -100
SPECIAL_TOKENS = ("<bos>", "=", "<eos>", "<pad>")


@dataclass(frozen=True)
class Vocab:
    """Token ids of a group of ``order`` elements."""

    order: int

    @property
    def bos(self) -> int:
        return self.order

    @property
    def sep(self) -> int:
        return self.order + 1

    @property
    def eos(self) -> int:
        return self.order + 2

    @property
    def pad(self) -> int:
        return self.order + 3

    @property
    def size(self) -> int:
        return self.order + 4


def sequence_length(fmt: str, n: np.ndarray | int):
    """Token length of an example with n group elements."""
    return {"acot": n + 1, "outcome": n + 2, "cot": 2 * n + 2}[fmt]


def encode(fmt: str, elements: np.ndarray, states: np.ndarray, lengths: np.ndarray,
           vocab: Vocab) -> tuple[np.ndarray, np.ndarray]:
    """Padded ``input_ids`` and aligned ``labels`` ([K, T], int64) for a batch of words.

    ``elements`` and ``states`` are [K, max_n], valid up to each row's length. Built with
    index arithmetic on a position grid, so rows of different lengths need no loop.
    """
    k, width = elements.shape
    n = lengths[:, None]
    t_max = int(sequence_length(fmt, lengths).max(initial=0))
    j = np.arange(t_max)[None, :]  # [1, T]

    def gather(table: np.ndarray, index: np.ndarray) -> np.ndarray:
        # Clipped gather; the callers mask out positions where the index is meaningless.
        index = np.broadcast_to(np.clip(index, 0, max(width - 1, 0)), (k, t_max))
        return np.take_along_axis(table.astype(np.int64), index, axis=1)

    ids = np.full((k, t_max), vocab.pad, dtype=np.int64)
    labels = np.full((k, t_max), IGNORE, dtype=np.int64)
    ids[:, 0] = vocab.bos
    is_input = (j >= 1) & (j <= n)
    ids = np.where(is_input, gather(elements, j - 1), ids)

    def state_at(index: np.ndarray) -> np.ndarray:
        return gather(states, index)

    if fmt == "acot":
        labels = np.where(is_input, state_at(j - 1), labels)
    elif fmt == "outcome":
        ids = np.where(j == n + 1, vocab.sep, ids)
        labels = np.where(j == n + 1, state_at(n - 1), labels)
    elif fmt == "cot":
        ids = np.where(j == n + 1, vocab.sep, ids)
        is_state = (j >= n + 2) & (j <= 2 * n + 1)
        ids = np.where(is_state, state_at(j - n - 2), ids)
        is_target = (j >= n + 1) & (j <= 2 * n)
        labels = np.where(is_target, state_at(j - n - 1), labels)
        labels = np.where(j == 2 * n + 1, vocab.eos, labels)
    else:
        raise ValueError(f"unknown format {fmt!r}; allowed: acot, outcome, cot")
    return ids, labels
