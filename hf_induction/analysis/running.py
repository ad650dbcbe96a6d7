"""How the analyses run a model: read-only, in eval mode, under a chosen attention function,
one batch of rows of one length at a time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from transformers import PreTrainedModel

from .prompts import HeadPrompts


class NoAttention(ValueError):
    """The model has no attention to read (a recurrent model): its weights are not returned,
    or no layer runs on transformers' attention interface."""


@contextmanager
def reading(model: PreTrainedModel, attn_implementation: str) -> Iterator[PreTrainedModel]:
    """The model in eval mode, under ``attn_implementation``, without gradients; its mode and
    attention implementation are restored afterwards, whatever happens.

    Eval mode also means no dropout and, for ``gpt2_offset``, GPT-2's own positions from 0:
    its random offsets are drawn only in training forwards without ``position_ids``.
    """
    training = model.training
    # transformers keeps the implementation on the config (a property over a private field).
    before = model.config._attn_implementation
    model.eval()
    model.set_attn_implementation(attn_implementation)
    try:
        with torch.no_grad():
            yield model
    finally:
        model.set_attn_implementation(before)
        model.train(training)


@dataclass(frozen=True)
class Batch:
    """Rows of one length on the model's device, and the scored positions among them
    (``rows`` index the batch)."""

    input_ids: torch.Tensor  # [B, T]
    labels: torch.Tensor  # [B, T]
    rows: torch.Tensor  # [P]
    t: torch.Tensor  # [P]
    s: torch.Tensor  # [P]


def as_list(prompts: HeadPrompts | Sequence[HeadPrompts]) -> list[HeadPrompts]:
    return [prompts] if isinstance(prompts, HeadPrompts) else list(prompts)


def batches(prompts_list: Sequence[HeadPrompts], batch_size: int,
            device: torch.device | str = "cpu") -> Iterator[Batch]:
    """Every prompt group cut into batches of at most ``batch_size`` rows."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    for prompts in prompts_list:
        for start in range(0, len(prompts), batch_size):
            stop = min(start + batch_size, len(prompts))
            inside = (prompts.rows >= start) & (prompts.rows < stop)
            yield Batch(prompts.input_ids[start:stop].to(device),
                        prompts.labels[start:stop].to(device),
                        (prompts.rows[inside] - start).to(device),
                        prompts.t[inside].to(device), prompts.s[inside].to(device))
