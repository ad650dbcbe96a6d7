"""The model registry: name -> its config class, named by import path and loaded on first use,
so that a command line can list the models without importing torch."""

from __future__ import annotations

import importlib

CONFIG_CLASSES: dict[str, str] = {
    "dense_ssm": "hf_induction.models.dense_ssm:DenseSSMConfig",
    "lstm": "hf_induction.models.lstm:LSTMConfig",
    "gpt2": "transformers:GPT2Config",
    "mamba": "transformers:MambaConfig",
    # The second study's transformers: absolute positions trained from random offsets, and
    # rotary positions (transformers' Llama classes).
    "gpt2_offset": "hf_induction.models.gpt2_offset:GPT2OffsetConfig",
    "rope": "transformers:LlamaConfig",
}
MODEL_NAMES: tuple[str, ...] = tuple(CONFIG_CLASSES)
HF_PREFIX = "hf:"


def config_class(name: str):
    """The `PreTrainedConfig` subclass of a registered model (ValueError for another name)."""
    if name not in CONFIG_CLASSES:
        raise ValueError(
            f"unknown model {name!r}; allowed: {list(MODEL_NAMES)} or '{HF_PREFIX}PATH_OR_REPO_ID'"
        )
    module, attr = CONFIG_CLASSES[name].split(":")
    return getattr(importlib.import_module(module), attr)
