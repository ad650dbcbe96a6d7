"""A cell's split as arrays: words, states and the encoded examples."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import TaskConfig
from .layout import Vocab, encode, sequence_length
from .sampling import sample_split


@dataclass(frozen=True)
class Examples:
    """One split of one cell; row i is example i. Padded arrays plus per-row lengths."""

    elements: np.ndarray  # [K, max_n] group ids
    states: np.ndarray  # [K, max_n] s_1..s_n
    lengths: np.ndarray  # [K] n
    input_ids: np.ndarray  # [K, T] padded with PAD
    labels: np.ndarray  # [K, T] causal-LM labels (the model shifts), -100 where unsupervised
    token_lengths: np.ndarray  # [K] unpadded length of input_ids / labels

    def __len__(self) -> int:
        return len(self.lengths)


def vocab_of(cfg: TaskConfig) -> Vocab:
    return Vocab(cfg.group.order)


def generate(cfg: TaskConfig, split: str, size: int | None = None, seed: int = 0) -> Examples:
    """Examples of ``split`` for the cell ``cfg``: a pure function of its arguments.

    ``size`` is the number of training rows (nested: the first N rows of a larger train
    split are the size-N set), the number of test rows (default 2,000 or the pool), and
    is ignored for validation, whose size is fixed by the cell.
    """
    words = sample_split(cfg, split, size, seed)
    states = cfg.group.scan(words.elements)
    ids, labels = encode(cfg.format, words.elements, states, words.lengths, vocab_of(cfg))
    return Examples(words.elements, states, words.lengths, ids, labels,
                    sequence_length(cfg.format, words.lengths))
