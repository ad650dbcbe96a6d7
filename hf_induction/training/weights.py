"""A finished run's weights, as the grid hands them out (one run's slice of a stacked grid, or
a model trained alone), and loaded back into a fresh model of the same factory: what a check
scores instead of training the run again."""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain

import torch
from torch import nn

from hf_induction.training.settings import RunResult

# One run's parameters and buffers by their names in the model (`named_parameters`,
# `named_buffers`: a tied weight appears once).
Weights = dict[str, torch.Tensor]
WeightsCallback = Callable[[RunResult, Weights], None]


def weights_of(model: nn.Module) -> Weights:
    """A copy of the model's parameters and buffers, detached."""
    return {name: t.detach().clone() for name, t in
            chain(model.named_parameters(), model.named_buffers())}


def stacked_weights(params: dict[str, torch.Tensor], buffers: dict[str, torch.Tensor],
                    slot: int, prefix: str = "") -> Weights:
    """Run ``slot``'s copy from tensors stacked along a leading run dimension, named as in
    the stacked module (``prefix``: what the stacking wrapper adds to the model's names)."""
    return {name.removeprefix(prefix): t[slot].detach().clone()
            for name, t in chain(params.items(), buffers.items())}


@torch.no_grad()
def load_weights(model: nn.Module, weights: Weights) -> nn.Module:
    """Copy ``weights`` into ``model`` (built by the factory that trained them); every
    parameter and buffer must be there, in its shape."""
    for name, t in chain(model.named_parameters(), model.named_buffers()):
        if name not in weights:
            raise KeyError(f"no weights for {name!r}")
        t.copy_(weights[name])
    return model
