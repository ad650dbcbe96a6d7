"""The aligned loss: cross-entropy of every position's output against its own label, no shift."""

from __future__ import annotations

import torch

from hf_induction.training.data import IGNORE_INDEX


def token_losses(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of every position against its own label, 0 where the label is -100:
    ``[..., V], [...] -> [...]``.

    logsumexp minus the label's logit, which is `F.cross_entropy` (reduction "none"): the
    CPU's log-softmax kernel is slow over a last dimension this short (V = |G| + 4), and this
    form trains a tiny model's step faster (docs/benchmarks.md).
    """
    supervised = labels != IGNORE_INDEX
    picked = logits.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return torch.where(supervised, torch.logsumexp(logits, dim=-1) - picked, 0.0)


def aligned_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Token-mean cross-entropy over supervised positions.

    Args:
        logits: ``[B, T, V]`` model outputs.
        labels: ``[B, T]``; ``labels[:, i]`` is the target of ``logits[:, i]``, -100 to skip.

    Returns:
        A scalar tensor.
    """
    return token_losses(logits, labels).sum() / (labels != IGNORE_INDEX).sum()


def aligned_loss_sum(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, int]:
    """Summed cross-entropy and the number of supervised positions, for chunked evaluation."""
    return token_losses(logits, labels).sum(), int((labels != IGNORE_INDEX).sum())


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
    runs = logits.shape[0]
    labels = labels.expand(logits.shape[:-1])  # [R, B, T]
    token_loss = token_losses(logits, labels).reshape(runs, -1)  # [R, B*T]
    counts = (labels != IGNORE_INDEX).reshape(runs, -1).sum(dim=1)  # [R]
    return token_loss.sum(dim=1), counts


def aligned_loss_per_run(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Token-mean cross-entropy per run: ``[R, B, T, V], [R, B, T] -> [R]``."""
    sums, counts = aligned_loss_sum_per_run(logits, labels)
    return sums / counts
