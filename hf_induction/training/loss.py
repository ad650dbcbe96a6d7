"""The aligned loss: cross-entropy of every position's output against its own label, no shift."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from hf_induction.training.data import IGNORE_INDEX


def aligned_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Token-mean cross-entropy over supervised positions.

    Args:
        logits: ``[B, T, V]`` model outputs.
        labels: ``[B, T]``; ``labels[:, i]`` is the target of ``logits[:, i]``, -100 to skip.

    Returns:
        A scalar tensor.
    """
    return F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=IGNORE_INDEX
    )


def aligned_loss_sum(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, int]:
    """Summed cross-entropy and the number of supervised positions, for chunked evaluation."""
    total = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]),
        labels.reshape(-1),
        ignore_index=IGNORE_INDEX,
        reduction="sum",
    )
    return total, int((labels != IGNORE_INDEX).sum())


def aligned_loss_sum_per_run(
    logits: torch.Tensor, labels: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Summed cross-entropy and supervised-position counts, one of each per run.

    Args:
        logits: ``[R, B, T, V]``, the outputs of R stacked runs.
        labels: ``[R, B, T]``, or ``[B, T]`` when all runs see the same batch.

    Returns:
        ``(sums [R], counts [R])``.
    """
    runs, vocab = logits.shape[0], logits.shape[-1]
    labels = labels.expand(logits.shape[:-1])  # [R, B, T]
    token_loss = F.cross_entropy(
        logits.reshape(-1, vocab),
        labels.reshape(-1),
        ignore_index=IGNORE_INDEX,
        reduction="none",
    ).view(runs, -1)  # [R, B*T]
    counts = (labels != IGNORE_INDEX).reshape(runs, -1).sum(dim=1)  # [R]
    return token_loss.sum(dim=1), counts


def aligned_loss_per_run(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Token-mean cross-entropy per run: ``[R, B, T, V], [R, B, T] -> [R]``."""
    sums, counts = aligned_loss_sum_per_run(logits, labels)
    return sums / counts
