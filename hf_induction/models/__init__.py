"""Models: Dense-SSM, LSTM and DeltaNet / Gated DeltaNet (ours, fla template), GPT-2, Mamba and a
RoPE decoder (Llama) from transformers, GPT-2 with random position offsets, Mamba-2, xLSTM and
a delta-rule/attention hybrid (OLMo Hybrid) from transformers, one builder.

Each model is described by its `SPEC` (its folder's ``__init__``, or a spec module for a
transformers model) and listed by one line in `registry.py`. A name is looked up once
(`model_source`, torch-free) and its source resolved once per vocabulary (`resolve_model`:
config, tokenizer, factory, hash). A model of ours is registered with the Auto classes when
its config class is first used, and all of ours when a saved config is read (``hf:FOLDER``).
The names, presets and specs load without torch, so that a command line can check its
arguments first.

A model of one's own is a `ModelSpec` (with its `CpuBudget`) in one's own package, found by
entry point, or named as ``path/to/file.py:NAME`` or ``module:NAME`` (`registry.py`);
`hf_induction.training.contract.check_model` checks it does what the trainer asks.
"""

from __future__ import annotations

from ..lazy import lazy_attributes
from .presets import PRESETS
from .registry import MODEL_NAMES, SPECS, model_names, model_source, model_spec
from .source import ModelSource
from .spec import CpuBudget, ModelSpec

_LAZY = {
    "build_config": "build", "build_model": "build", "model_config_hash": "build",
    "model_factory": "build", "resolve_model": "build", "vocabulary": "build",
}

__all__ = ["MODEL_NAMES", "PRESETS", "SPECS", "CpuBudget", "ModelSource", "ModelSpec",
           "model_names", "model_source", "model_spec", *_LAZY]


__getattr__ = lazy_attributes(__name__, _LAZY)
