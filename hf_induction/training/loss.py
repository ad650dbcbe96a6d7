"""The causal-LM loss, as every `AutoModelForCausalLM` computes it: the output at position j
is scored against ``labels[..., j + 1]`` (the model shifts), -100 is skipped, and the mean is
over supervised tokens.

Logits may cover every input position (``model(input_ids).logits``) or stop one short: the
output at the last position predicts nothing, so the trainer does not compute it (it feeds
``input_ids[:, :-1]``; a causal model's earlier outputs do not depend on the last token).
"""

from __future__ import annotations

import torch

from hf_induction.training.tensors import IGNORE_INDEX


def next_token_targets(logits: torch.Tensor, labels: torch.Tensor):
    """``(logits [..., T-1, V], targets [..., T-1])``: each output beside the label it predicts."""
    targets = labels[..., 1:]
    return logits[..., : targets.shape[-1], :], targets


def token_losses(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of every output against the next label, 0 where that label is -100:
    ``[..., T or T-1, V], [..., T] -> [..., T-1]``.

    logsumexp minus the label's logit, which is `F.cross_entropy` (reduction "none"): the
    CPU's log-softmax kernel is slow over a last dimension this short (V = |G| + 4), and this
    form trains a tiny model's step faster (docs/benchmarks.md). Half-precision logits are
    scored in float32, as transformers' loss does.
    """
    logits, targets = next_token_targets(logits, labels)
    if logits.dtype in (torch.float16, torch.bfloat16):
        logits = logits.float()
    supervised = targets != IGNORE_INDEX
    picked = logits.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return torch.where(supervised, torch.logsumexp(logits, dim=-1) - picked, 0.0)


def supervised_count(labels: torch.Tensor) -> torch.Tensor:
    """How many targets ``labels`` supervises: labels other than -100 after position 0."""
    return (labels[..., 1:] != IGNORE_INDEX).sum()


def causal_lm_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Token-mean next-token cross-entropy: ``model(input_ids, labels=labels).loss``.

    Args:
        logits: ``[B, T, V]`` (or ``[B, T-1, V]``) model outputs.
        labels: ``[B, T]`` causal-LM labels, -100 to skip.

    Returns:
        A scalar tensor.
    """
    return token_losses(logits, labels).sum() / supervised_count(labels)


def causal_lm_loss_sum(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, int]:
    """Summed cross-entropy and the number of supervised targets, for chunked evaluation."""
    return token_losses(logits, labels).sum(), int(supervised_count(labels))


def causal_lm_loss_sum_per_run(
    logits: torch.Tensor, labels: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Summed cross-entropy and supervised-target counts, one of each per run.

    Args:
        logits: ``[R, B, T or T-1, V]``, the outputs of R stacked runs.
        labels: ``[R, B, T]``, or ``[B, T]`` when all runs see the same batch.

    Returns:
        ``(sums [R], counts [R])``.
    """
    runs = logits.shape[0]
    labels = labels.expand(runs, *labels.shape[-2:])  # [R, B, T]
    token_loss = token_losses(logits, labels).reshape(runs, -1)  # [R, B*(T-1)]
    counts = (labels[..., 1:] != IGNORE_INDEX).reshape(runs, -1).sum(dim=1)  # [R]
    return token_loss.sum(dim=1), counts


def causal_lm_loss_per_run(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Token-mean cross-entropy per run: ``[R, B, T, V], [R, B, T] -> [R]``."""
    sums, counts = causal_lm_loss_sum_per_run(logits, labels)
    return sums / counts
