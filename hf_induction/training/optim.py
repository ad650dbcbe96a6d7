"""The optimizer a run trains with: Adam (the paper's), or AdamW with a warmed-up learning
rate and clipped gradients (the second study's fine-tuning, transformers' `Trainer` defaults).

`TrainSettings` holds the knobs (``weight_decay``, ``warmup``, ``lr_schedule``,
``max_grad_norm``); at their defaults a run trains with ``torch.optim.Adam`` exactly as
before. The stacked grid applies the same rules per run (`training.adam.StackedAdam`,
`stacked_clip`), so a grid point trains the same whether stacked or alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch
from torch import nn


def warmup_steps(warmup: float, max_steps: int) -> int:
    """Steps of linear warmup: ``ceil(warmup x max_steps)``, as transformers'
    ``TrainingArguments.get_warmup_steps`` counts a ratio."""
    return math.ceil(warmup * max_steps)


def lr_factor(step: int, max_steps: int, warmup: float, schedule: str) -> float:
    """The learning rate's multiplier at optimizer step ``step`` (0 for the first step):
    transformers' ``get_linear_schedule_with_warmup`` ("linear": up from 0 over the warmup,
    then down to 0 at ``max_steps``) or ``get_constant_schedule_with_warmup`` ("constant")."""
    warm = warmup_steps(warmup, max_steps)
    if step < warm:
        return step / max(1, warm)
    if schedule == "constant":
        return 1.0
    return max(0.0, (max_steps - step) / max(1, max_steps - warm))


def decays(parameter: torch.Tensor, stacked: bool = False) -> bool:
    """Whether weight decay applies to a parameter: every matrix (weights and embeddings), no
    bias or norm gain. For GPT-2 this is the `Trainer`'s own split (no decay on biases and
    LayerNorm weights). A stacked parameter has one leading run dimension more."""
    return parameter.dim() - int(stacked) >= 2


def plain_adam(settings) -> bool:
    """Whether ``settings`` ask for nothing but Adam at a constant learning rate."""
    return (settings.weight_decay == 0 and settings.warmup == 0
            and settings.lr_schedule == "constant" and settings.max_grad_norm is None)


def build_optimizer(model: nn.Module, lr: float, settings):
    """(optimizer, scheduler or None) for one run: ``torch.optim.Adam`` when the settings ask
    for plain Adam, else ``torch.optim.AdamW`` (decay on the parameters `decays` names) with a
    ``LambdaLR`` of `lr_factor`."""
    if plain_adam(settings):
        return torch.optim.Adam(model.parameters(), lr=lr), None
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    groups = [{"params": [p for _, p in named if decays(p)],
               "weight_decay": settings.weight_decay},
              {"params": [p for _, p in named if not decays(p)], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW([g for g in groups if g["params"]], lr=lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: lr_factor(
        step, settings.max_steps, settings.warmup, settings.lr_schedule))
    return optimizer, scheduler


def clip(parameters: Iterable[torch.Tensor], settings) -> None:
    """``clip_grad_norm_`` to ``settings.max_grad_norm``; nothing where it is None."""
    if settings.max_grad_norm is not None:
        torch.nn.utils.clip_grad_norm_(list(parameters), settings.max_grad_norm)


def stacked_clip(grads: list[torch.Tensor | None], max_norm: float | None) -> None:
    """`clip` for stacked gradients ``[R, ...]``, in place: each run's gradients scaled by
    ``max_norm / (its total 2-norm + 1e-6)`` where that is below 1, as ``clip_grad_norm_``
    scales one run's."""
    present = [g for g in grads if g is not None]
    if max_norm is None or not present:
        return
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in present])  # [P, R]
    total = norms.norm(dim=0)  # [R]
    coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
    for g in present:
        g.mul_(coef.to(g.dtype).view(-1, *([1] * (g.dim() - 1))))
