"""Models: Dense-SSM and LSTM (ours, fla template), GPT-2 and Mamba (transformers), one builder.

Importing this package registers the Dense-SSM and LSTM with the transformers Auto classes.
"""

from . import dense_ssm, lstm
from .build import MODEL_NAMES, build_config, build_model, model_config_hash, vocabulary
from .presets import PRESETS

__all__ = [
    "MODEL_NAMES",
    "PRESETS",
    "build_config",
    "build_model",
    "dense_ssm",
    "lstm",
    "model_config_hash",
    "vocabulary",
]
