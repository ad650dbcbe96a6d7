"""Analytic FLOPs of a model: what bench.py divides by and what cost estimates count. Each
model's count is its spec's (`ModelSpec.flops_per_token`)."""

from __future__ import annotations

from .registry import MODEL_NAMES, SOURCE_PREFIXES, model_spec


def flops_per_token(name: str, config, length: int) -> float:
    """Forward FLOPs per token at sequence length ``length``: matrix products, 2 per
    multiply-add, as the model's spec counts them (each says what it leaves out). A training
    step is about 3 times this."""
    if name.startswith(SOURCE_PREFIXES):
        raise ValueError(f"no FLOP count for model {name!r}; known: {', '.join(MODEL_NAMES)} "
                         "and models from outside the package")
    return model_spec(name).flops_per_token(config, length)


def train_step_flops(name: str, config, batch: int, length: int) -> float:
    """FLOPs of one training step (forward, backward at twice the forward, no update)."""
    return 3 * flops_per_token(name, config, length) * batch * length
