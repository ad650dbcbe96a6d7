"""Models: Dense-SSM and LSTM (ours, fla template), GPT-2, Mamba and a RoPE decoder (Llama) from
transformers, GPT-2 with random position offsets, one builder.

Importing `build_model` (or anything below but the registry) registers the Dense-SSM, LSTM
and offset GPT-2 with the Auto classes. The names and presets load without torch, so that a
command line can check its arguments first.
"""

from __future__ import annotations

import importlib

from .presets import PRESETS
from .registry import MODEL_NAMES

_LAZY = {
    "build_config": "build", "build_model": "build", "model_config_hash": "build",
    "vocabulary": "build", "dense_ssm": None, "gpt2_offset": None, "lstm": None,
}

__all__ = ["MODEL_NAMES", "PRESETS", *_LAZY]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_LAZY[name] or name}")
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value
    return value
