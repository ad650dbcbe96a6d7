"""Models: Dense-SSM and LSTM (ours, fla template), GPT-2, Mamba and a RoPE decoder (Llama) from
transformers, GPT-2 with random position offsets, one builder.

Importing this package registers the Dense-SSM, LSTM and offset GPT-2 with the Auto classes.
"""

from . import dense_ssm, gpt2_offset, lstm
from .build import MODEL_NAMES, build_config, build_model, model_config_hash, vocabulary
from .presets import PRESETS

__all__ = [
    "MODEL_NAMES",
    "PRESETS",
    "build_config",
    "build_model",
    "dense_ssm",
    "gpt2_offset",
    "lstm",
    "model_config_hash",
    "vocabulary",
]
