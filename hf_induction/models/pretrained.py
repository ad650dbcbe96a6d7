"""A pretrained checkpoint to fine-tune: ``pretrained:FOLDER_OR_REPO_ID``.

``hf:SPEC`` builds fresh weights from a config at the task's vocabulary (training from
scratch); ``pretrained:SPEC`` loads the checkpoint's weights and keeps its vocabulary and its
tokenizer, whose single tokens then carry the task's symbols (`data.token_map`). Its config
records a digest of the weights it starts from (``initial_weights_sha256``), so results of
two checkpoints of one architecture, or of a checkpoint and its architecture trained from
scratch, are never keyed alike.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

from .quiet import transformers_bars_off
from .registry import PRETRAINED_PREFIX, register_all

# What a Hub id is fetched with: configs, weights (safetensors) and tokenizer files; a repo's
# other formats (PyTorch pickles, TF, Flax, ONNX: gpt2-xl holds 30 GB of them) are skipped.
FETCHED = ["*.json", "*.safetensors", "*.txt", "*.model", "*.tiktoken"]
WEIGHT_FILES = ("*.safetensors", "*.bin")
DIGEST_FIELD = "initial_weights_sha256"


def pretrained_folder(spec: str) -> Path:
    """The folder of ``pretrained:SPEC``: SPEC itself if it is a folder, else the Hub repo's
    snapshot (from the local cache when offline). OSError, one line, where neither holds it."""
    if os.path.isdir(spec):
        return Path(spec)
    from huggingface_hub import constants, snapshot_download

    hub_logger = logging.getLogger("huggingface_hub")
    level = hub_logger.level
    hub_logger.setLevel(logging.ERROR)
    try:
        with contextlib.suppress(Exception):
            return Path(snapshot_download(spec, allow_patterns=FETCHED,
                                          local_files_only=constants.HF_HUB_OFFLINE))
    finally:
        hub_logger.setLevel(level)
    raise OSError(f"{PRETRAINED_PREFIX}{spec} is not a folder here, and the Hub (or its local "
                  f"cache) does not have it; fetch it where the Hub can be reached (`hf download "
                  f"{spec} --include '*.json' '*.safetensors' '*.txt' --local-dir DIR`) and "
                  f"give {PRETRAINED_PREFIX}DIR")


def weight_files(folder: Path) -> list[Path]:
    return sorted({p for pattern in WEIGHT_FILES for p in folder.glob(pattern)})


@functools.lru_cache(maxsize=8)
def _digest(files: tuple[tuple[str, int, int], ...]) -> str:
    sha = hashlib.sha256()
    for path, _, _ in files:
        sha.update(Path(path).name.encode() + b"\0")
        with open(path, "rb") as f:
            while chunk := f.read(1 << 24):
                sha.update(chunk)
    return sha.hexdigest()


def weights_digest(folder: Path) -> str:
    """sha256 of the folder's weight files (names and bytes), computed once per process for
    files of a given size and time (gpt2-xl's 6 GB take seconds)."""
    files = tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in weight_files(folder))
    return _digest(files)


def pretrained_config(spec: str):
    """The checkpoint's config as it is (vocabulary, special tokens, architecture), with the
    digest of its weights; ValueError, one line, for a folder without weights."""
    from transformers import AutoConfig

    folder = pretrained_folder(spec)
    if not weight_files(folder):
        raise ValueError(f"{PRETRAINED_PREFIX}{spec}: {folder} holds no weights (*.safetensors, "
                         f"*.bin) to fine-tune; hf:{spec} trains its architecture from scratch")
    # A saved config names its class by model_type: ours must be registered to be read.
    register_all()
    config = AutoConfig.from_pretrained(folder)
    setattr(config, DIGEST_FIELD, weights_digest(folder))
    return config


# The checkpoint last loaded, kept for every job of the process that fine-tunes it (a 1.5B
# model is 6 GB): (folder, weights digest) -> model.
_LOADED: dict[tuple[str, str], object] = {}


def pretrained_factory(spec: str, config) -> Callable:
    """Builds one copy of the checkpoint's model (float32, as every model here trains unless
    told otherwise) per call; the weights are read from disk once per process."""
    folder = pretrained_folder(spec)
    key = (str(folder.resolve()), str(getattr(config, DIGEST_FIELD, "")))

    def factory():
        if key not in _LOADED:
            import torch
            from transformers import AutoModelForCausalLM

            _LOADED.clear()
            with transformers_bars_off():
                _LOADED[key] = AutoModelForCausalLM.from_pretrained(
                    folder, config=config, dtype=torch.float32)
        return copy.deepcopy(_LOADED[key])

    return factory


@functools.lru_cache(maxsize=8)
def pretrained_tokenizer(spec: str):
    """The checkpoint's own tokenizer (``AutoTokenizer``), loaded once per process."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(pretrained_folder(spec))
