"""The tensors a training run consumes: a nested training pool and a fixed validation set."""

from __future__ import annotations

from dataclasses import dataclass

import torch

IGNORE_INDEX = -100
# Pools are held in any signed integer type (int8 is 8x smaller than int64 for a paper-size
# pool of 16M rows) and widened to int64 only for the rows of a batch, on its device.
TOKEN_DTYPES = (torch.int8, torch.int16, torch.int32, torch.int64)
# Whole-pool checks and reductions go this many rows at a time, so that their boolean and
# int64 temporaries stay small beside a 16M-row pool of int8.
ROW_CHUNK = 1 << 18


@dataclass(frozen=True)
class TrainData:
    """Training pool and validation set of one task cell, as padded token tensors.

    Rows are right-padded: a PAD id in the inputs and ``IGNORE_INDEX`` (-100) in the labels.
    Labels follow the causal-LM convention: the output after reading ``input_ids[:, :j]`` is
    trained against ``labels[:, j]`` (the model shifts), so ``labels[:, 0]`` is always -100.
    A training set of size N is the first N rows of the pool, so sizes are nested.

    Args:
        train_input_ids: ``[N_pool, T]`` token ids of the training pool.
        train_labels: ``[N_pool, T]`` causal-LM labels, -100 where unsupervised.
        val_input_ids: ``[N_val, T']`` token ids of the validation set.
        val_labels: ``[N_val, T']`` causal-LM labels, -100 where unsupervised.
        whole_pool: how many training rows the cell has in all, where known (a search may
            hold fewer rows than that); a probe of them all is the one that decides whether
            N* exists, which the early-failure rule leaves to the full budget.
        positions: the tokens of the longest row the trained model will be evaluated on
            (its checks' test splits), where known: random position offsets
            (`TrainSettings.position_offsets`) cover positions up to it.
    """

    train_input_ids: torch.Tensor
    train_labels: torch.Tensor
    val_input_ids: torch.Tensor
    val_labels: torch.Tensor
    whole_pool: int | None = None
    positions: int | None = None

    def __post_init__(self) -> None:
        for split in ("train", "val"):
            ids = getattr(self, f"{split}_input_ids")
            labels = getattr(self, f"{split}_labels")
            if ids.dim() != 2 or ids.shape != labels.shape:
                raise ValueError(
                    f"{split}_input_ids {tuple(ids.shape)} and {split}_labels "
                    f"{tuple(labels.shape)} must be 2-D tensors of the same shape"
                )
            if ids.dtype not in TOKEN_DTYPES or labels.dtype not in TOKEN_DTYPES:
                raise ValueError(
                    f"{split} tensors must be one of {', '.join(map(str, TOKEN_DTYPES))}; got "
                    f"{ids.dtype} and {labels.dtype}"
                )
            if ids.shape[0] == 0:
                raise ValueError(f"the {split} set is empty")
            # No output predicts the first token, so a label there would silently go unscored.
            if (labels[:, 0] != IGNORE_INDEX).any():
                raise ValueError(
                    f"{split}_labels[:, 0] must be -100: labels follow the causal-LM convention "
                    "(the model shifts), and no output predicts the first token"
                )
            # A row without any supervised position has an undefined (0/0) loss.
            if not all((chunk != IGNORE_INDEX).any(dim=1).all()
                       for chunk in labels.split(ROW_CHUNK)):
                raise ValueError(f"every {split} row needs at least one label other than -100")

    @property
    def pool_size(self) -> int:
        """Number of rows available for training; the largest possible N."""
        return self.train_input_ids.shape[0]


def supervised_lengths(labels: torch.Tensor) -> torch.Tensor:
    """Per row, one past the last supervised label: ``[N, T] -> [N]``.

    Causal models never let later positions change earlier outputs, so label columns beyond
    this length, and input columns from one before it, can be cut from a batch without
    changing its loss.
    """
    positions = torch.arange(1, labels.shape[1] + 1, device=labels.device)
    if labels.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long, device=labels.device)
    return torch.cat([((chunk != IGNORE_INDEX) * positions).amax(dim=1)  # [chunk]
                      for chunk in labels.split(ROW_CHUNK)])
