"""The arrays a training run needs: the first N training rows and the validation set."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tasks import TaskCell, Vocab, generate


@dataclass(frozen=True)
class CellArrays:
    """Padded int64 arrays of one cell; ``train_*`` rows are nested training sets."""

    config: TaskCell
    seed: int
    vocab: Vocab
    train_input_ids: np.ndarray  # [N_max, T]
    train_labels: np.ndarray  # [N_max, T]
    val_input_ids: np.ndarray  # [N_val, T']
    val_labels: np.ndarray  # [N_val, T']


def cell_arrays(cfg: TaskCell, seed: int, max_train: int) -> CellArrays:
    """Training rows 0..max_train-1 and the validation set of ``cfg`` for ``seed``."""
    train = generate(cfg, "train", max_train, seed)
    val = generate(cfg, "validation", None, seed)
    return CellArrays(cfg, seed, cfg.vocab, train.input_ids, train.labels,
                      val.input_ids, val.labels)
