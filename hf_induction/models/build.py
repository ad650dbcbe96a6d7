"""One builder for every registered model (registry.py), or any transformers config."""

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from transformers import AutoConfig, AutoModelForCausalLM, PreTrainedConfig, PreTrainedModel

from .presets import PRESETS
from .pretrained import pretrained_config, pretrained_factory, pretrained_tokenizer
from .quiet import transformers_bars_off
from .registry import HF_PREFIX, PRETRAINED_PREFIX, register_all, source_of
from .source import CheckpointSource, ConfigSource, ModelSource, SpecSource

# Fields that change on save/load or select a kernel, not the function the model computes.
VOLATILE_CONFIG_FIELDS = frozenset(
    {
        "transformers_version",
        "_name_or_path",
        "name_or_path",
        "architectures",
        "auto_map",
        "dtype",
        "torch_dtype",
        "use_cache",
        "lstm_implementation",
        "transition_kernel",
        "delta_rule_kernel",
        "chunk_size",
        "_attn_implementation_autoset",
        "output_attentions",
        "output_hidden_states",
        "return_dict",
    }
)

# Without mamba_ssm, causal_conv1d or flash-linear-attention (CUDA kernels) Mamba, Mamba-2 and the
# hybrid run transformers' PyTorch reference kernels, which are exact and on a CPU the only ones
# there are; transformers says so once per kernel in every process, up to five lines a launch.
# Only those lines are dropped (README, Models).
KERNEL_FALLBACK = "is falling back to its reference PyTorch implementation"


def _not_a_kernel_fallback(record: logging.LogRecord) -> bool:
    return KERNEL_FALLBACK not in record.getMessage()


logging.getLogger("transformers.integrations.hub_kernels").addFilter(_not_a_kernel_fallback)


def save_model(model: PreTrainedModel, directory) -> None:
    """``model.save_pretrained(directory)`` (safetensors, config, the code of a model of ours)
    from whichever process calls it.

    transformers 5 writes nothing, silently, on a rank other than 0 once torch.distributed is
    initialised (``should_save_on_this_rank``): it assumes data parallelism, where rank 0
    holds the same weights. Our launches give each process jobs of its own, so rank 1's
    model exists nowhere else; this instance is told to save wherever it is."""
    model.should_save_on_this_rank = lambda is_main_process: is_main_process
    try:
        with transformers_bars_off():
            model.save_pretrained(directory, safe_serialization=True)
    finally:
        del model.should_save_on_this_rank
    directory = Path(directory)
    if not (directory / "model.safetensors").exists() and not list(
            directory.glob("model-*.safetensors")):
        raise RuntimeError(f"save_pretrained wrote no safetensors weights into {directory}")


def vocabulary(vocab) -> tuple[int, dict[str, int]]:
    """(size, special token ids) of ``vocab``: a task's ``Vocab`` (anything with ``size`` and
    ``special_token_ids()``), whose BOS, EOS and PAD the config then carries, or a bare size,
    which sets none."""
    if isinstance(vocab, int):
        if vocab < 1:
            raise ValueError(f"vocab_size must be a positive integer, got {vocab}")
        return vocab, {}
    return int(vocab.size), dict(vocab.special_token_ids())


def _foreign_tokens(defaults: dict, tokens: dict[str, int], vocab_size: int) -> dict:
    """None for each of a base config's own BOS/EOS/PAD (GPT-2's 50256) that the vocabulary
    cannot hold, so the config is built without them (transformers warns at construction)."""
    return {
        key: None
        for key in ("bos_token_id", "eos_token_id", "pad_token_id")
        if key not in tokens
        and isinstance(defaults.get(key), int)
        and defaults[key] >= vocab_size
    }


def _check_overrides(cls: type[PreTrainedConfig], overrides: dict, name: str) -> None:
    known = set(getattr(cls, "__dataclass_fields__", {})) | set(cls.attribute_map)
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(
            f"unknown override(s) {unknown} for model {name!r}; "
            f"allowed: {sorted(known - VOLATILE_CONFIG_FIELDS)}"
        )


def hf_base_config(spec: str) -> PreTrainedConfig:
    """The config of ``hf:SPEC``: a folder with a config.json, or a Hub id (from the local cache
    when offline). OSError, one line, naming the id, why it cannot be read and how to get it;
    the Hub client's retry warnings (a dozen lines with no network) are not shown."""
    import contextlib
    import logging
    import os

    from huggingface_hub import constants

    # A saved config names its class by model_type: ours must be registered to be read.
    register_all()
    if os.path.isdir(spec):
        return AutoConfig.from_pretrained(spec)
    hub_logger = logging.getLogger("huggingface_hub")
    level = hub_logger.level
    hub_logger.setLevel(logging.ERROR)
    try:
        with contextlib.suppress(OSError):
            return AutoConfig.from_pretrained(spec, local_files_only=constants.HF_HUB_OFFLINE)
    finally:
        hub_logger.setLevel(level)
    where = ("is not in the local Hub cache and HF_HUB_OFFLINE is set"
             if constants.HF_HUB_OFFLINE else
             "is not a folder here, and neither the local Hub cache nor the Hub has it")
    raise OSError(f"hf:{spec} {where}; fetch it where the Hub can be reached "
                  f"(`hf download {spec} config.json`, into {constants.HF_HUB_CACHE}), or give "
                  "hf:FOLDER, a folder holding a config.json")


logger = logging.getLogger(__name__)
# The hf: specs this process has said it builds fresh weights for (said once each).
_FROM_SCRATCH_SAID: set[str] = set()


def _say_from_scratch(spec: str, vocab_size: int) -> None:
    if spec not in _FROM_SCRATCH_SAID:
        _FROM_SCRATCH_SAID.add(spec)
        logger.warning("%s%s: fresh weights from its config, at the task's vocabulary (%d "
                       "tokens) and special tokens; %s%s fine-tunes its own weights instead",
                       HF_PREFIX, spec, vocab_size, PRETRAINED_PREFIX, spec)


class _Builder:
    """How one kind of `ModelSource` becomes a config, a tokenizer and fresh models."""

    def config(self, source: ModelSource, vocab, preset: str,
               overrides: dict) -> PreTrainedConfig:
        vocab_size, tokens = vocabulary(vocab)
        cls, fields, defaults = self.base(source, vocab_size, preset)
        _check_overrides(cls, overrides, source.name)
        foreign = _foreign_tokens(defaults, tokens, vocab_size)
        return cls(**{**fields, **foreign, **tokens, **overrides, "vocab_size": vocab_size})

    def base(self, source: ModelSource, vocab_size: int, preset: str) -> tuple[type, dict, dict]:
        """(config class, its fields before the vocabulary, the defaults those fields cover)."""
        raise NotImplementedError

    def tokenizer(self, source: ModelSource):
        # A model built at the task's vocabulary reads the task's ids as they are.
        return None

    def factory(self, source: ModelSource,
                config: PreTrainedConfig) -> Callable[[], PreTrainedModel]:
        return lambda: AutoModelForCausalLM.from_config(config)


class _FromSpec(_Builder):
    def base(self, source: SpecSource, vocab_size: int, preset: str):
        cls = source.spec.config_class()
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; allowed: {list(PRESETS)}")
        # The spec's, not PRESETS': a model from outside the package is in no table of ours.
        fields = dict(source.spec.presets[preset])
        return cls, fields, {**cls().to_dict(), **fields}


class _FromConfig(_Builder):
    def base(self, source: ConfigSource, vocab_size: int, preset: str):
        _say_from_scratch(source.where, vocab_size)
        base = hf_base_config(source.where)
        fields = {k: v for k, v in base.to_dict().items()
                  if k not in ("transformers_version", "model_type")}
        return type(base), fields, fields


class _FromCheckpoint(_Builder):
    """The checkpoint's config as it is (`pretrained_config`): the task's vocabulary is carried
    by its tokenizer, and its architecture by its weights, so no override applies."""

    def config(self, source: CheckpointSource, vocab, preset: str, overrides: dict):
        if overrides:
            raise ValueError(f"model {source.name!r} keeps its checkpoint's architecture; "
                             f"overrides {sorted(overrides)} apply to hf:{source.where}, "
                             "trained from scratch")
        return pretrained_config(source.where)

    def tokenizer(self, source: CheckpointSource):
        return pretrained_tokenizer(source.where)

    def factory(self, source: CheckpointSource, config: PreTrainedConfig):
        return pretrained_factory(source.where, config)


_BUILDERS: dict[type[ModelSource], _Builder] = {
    SpecSource: _FromSpec(),
    ConfigSource: _FromConfig(),
    CheckpointSource: _FromCheckpoint(),
}


def build_config(model: ModelSource | str, vocab_size, preset: str = "tiny",
                 **overrides) -> PreTrainedConfig:
    """The config `build_model` would use, without building the model. ``model`` is a
    `ModelSource` (`registry.model_source`) or a name, looked up here."""
    source = source_of(model)
    return _BUILDERS[type(source)].config(source, vocab_size, preset, overrides)


def model_factory(model: ModelSource | str,
                  config: PreTrainedConfig) -> Callable[[], PreTrainedModel]:
    """Builds one fresh model of ``config`` per call (the trainer seeds it): untrained, or for
    a ``pretrained:`` source a copy of its checkpoint's weights."""
    source = source_of(model)
    return _BUILDERS[type(source)].factory(source, config)


def model_tokenizer(model: ModelSource | str):
    """The tokenizer a model reads its input with: a ``pretrained:`` checkpoint's own; None for
    a model built at a task's vocabulary, which reads the task's ids as they are."""
    source = source_of(model)
    return _BUILDERS[type(source)].tokenizer(source)


def build_model(name: ModelSource | str, vocab_size, preset: str = "tiny",
                **overrides) -> PreTrainedModel:
    """Build a causal LM: untrained, or a pretrained checkpoint as it is.

    Args:
        name: one of `MODEL_NAMES` (registry.py); "hf:PATH_OR_REPO_ID" for any `AutoConfig` (a
            folder with a config.json, or a Hub id) with fresh weights at the task's
            vocabulary (the preset is then unused, and the build says so in one line); or
            "pretrained:PATH_OR_REPO_ID" for the checkpoint's own weights, vocabulary and
            config (vocabulary, preset and overrides unused: the task reaches it through its
            tokenizer, `data.token_map`); or any other name ``--model`` takes, or its
            `ModelSource`.
        vocab_size: the task's ``Vocab`` (``cell.vocab``: its size and BOS, EOS and PAD go into
            the config), or a bare vocabulary size (no special tokens set).
        preset: one of `PRESETS` ("paper", "tiny").
        **overrides: config fields that replace the preset's values.

    Raises:
        ValueError: unknown name, preset or override, or a vocabulary size below 1.
    """
    source = source_of(name)
    return model_factory(source, build_config(source, vocab_size, preset, **overrides))()


def model_config_hash(model_or_config: PreTrainedModel | PreTrainedConfig) -> str:
    """A short, stable hash of what a model computes, to key results by.

    Fields that change on save/load (versions, paths, auto_map) or only pick a kernel are left out.
    """
    config = getattr(model_or_config, "config", model_or_config)
    fields = {k: v for k, v in config.to_dict().items() if k not in VOLATILE_CONFIG_FIELDS}
    payload = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class ResolvedModel:
    """A model source resolved once, at one vocabulary: its config, the tokenizer it reads with
    (a ``pretrained:`` checkpoint's own; None: the task's ids as they are), the hash that keys
    its results, and its factory. A campaign resolves each of its models once per cell and
    hands this on; nothing after it looks the name up again."""

    source: ModelSource
    config: PreTrainedConfig
    tokenizer: Any = None

    @property
    def name(self) -> str:
        return self.source.name

    @cached_property
    def config_hash(self) -> str:
        return model_config_hash(self.config)

    @cached_property
    def factory(self) -> Callable[[], PreTrainedModel]:
        """`model_factory` of the model: a fresh model per call."""
        return model_factory(self.source, self.config)


def resolve_model(model: ModelSource | str, vocab, preset: str = "tiny") -> ResolvedModel:
    """``model`` (a `ModelSource`, or a name looked up here) resolved at ``vocab`` under
    ``preset``: its config built once, and its tokenizer. OSError or ValueError, as
    `build_config`, for a model that cannot be."""
    source = source_of(model)
    builder = _BUILDERS[type(source)]
    return ResolvedModel(source, builder.config(source, vocab, preset, {}),
                         builder.tokenizer(source))
