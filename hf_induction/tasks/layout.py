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
FORMAT_NAMES = ("outcome", "cot", "acot")


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
    if fmt not in FORMAT_NAMES:
        raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMAT_NAMES)}")
    return {"acot": n + 1, "outcome": n + 2, "cot": 2 * n + 2}[fmt]


def _encode_block(fmt: str, g: np.ndarray, s: np.ndarray, vocab: Vocab):
    """input_ids and labels of words that all have the same length n: [K, n] -> [K, T]."""
    k = len(g)

    def col(value: int) -> np.ndarray:
        return np.full((k, 1), value, dtype=np.int64)

    ignore = np.full((k, g.shape[1] + 1), IGNORE, dtype=np.int64)
    if fmt == "acot":
        return np.hstack([col(vocab.bos), g]), np.hstack([ignore[:, :1], s])
    if fmt == "outcome":
        return np.hstack([col(vocab.bos), g, col(vocab.sep)]), np.hstack([ignore, s[:, -1:]])
    if fmt == "cot":
        return (np.hstack([col(vocab.bos), g, col(vocab.sep), s]),
                np.hstack([ignore, s, col(vocab.eos)]))
    raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMAT_NAMES)}")


def encode(fmt: str, elements: np.ndarray, states: np.ndarray, lengths: np.ndarray,
           vocab: Vocab) -> tuple[np.ndarray, np.ndarray]:
    """Padded ``input_ids`` and aligned ``labels`` ([K, T], int64) for a batch of words.

    ``elements`` and ``states`` are [K, max_n], valid up to each row's length. Rows are
    encoded in blocks of equal length (at most L blocks), so there is no loop per example.
    """
    k = len(lengths)
    t_max = int(sequence_length(fmt, lengths).max(initial=0))
    ids = np.full((k, t_max), vocab.pad, dtype=np.int64)
    labels = np.full((k, t_max), IGNORE, dtype=np.int64)
    for n in np.unique(lengths).tolist():
        rows = np.flatnonzero(lengths == n)
        whole = len(rows) == k
        g = (elements if whole else elements[rows])[:, :n].astype(np.int64)
        s = (states if whole else states[rows])[:, :n].astype(np.int64)
        block_ids, block_labels = _encode_block(fmt, g, s, vocab)
        t = block_ids.shape[1]
        if whole:
            ids[:, :t], labels[:, :t] = block_ids, block_labels
        else:
            ids[rows, :t], labels[rows, :t] = block_ids, block_labels
    return ids, labels
