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


def check_model_name(name: str) -> None:
    """What can be told of a model name without importing torch: a registered name, a folder
    that holds a config.json, or a well-formed Hub repo id (ValueError naming the fault).
    Whether a Hub id exists is only known when its config is fetched."""
    if not name.startswith(HF_PREFIX):
        if name not in CONFIG_CLASSES:
            config_class(name)  # raises the one-line error listing the names
        return
    from pathlib import Path

    path = name[len(HF_PREFIX):]
    if Path(path).is_dir():
        if not (Path(path) / "config.json").is_file():
            raise ValueError(f"--model {name}: the folder {path} holds no config.json")
        return
    if path.startswith(("/", ".", "~")) or path.count("/") > 1:
        raise ValueError(f"--model {name}: no such folder, and not a Hub repo id (ORG/NAME)")
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(path)
    except HFValidationError as e:
        raise ValueError(f"--model {name}: no such folder, and not a Hub repo id "
                         f"({str(e).splitlines()[0]})") from None
