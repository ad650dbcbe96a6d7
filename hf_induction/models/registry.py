"""The model registry: one line per model, naming the module whose `SPEC` says everything the
package knows of it (`spec.ModelSpec`). Specs load without torch, so that a command line can
list the models and check its arguments first.

Adding a model: a folder ``models/<name>/`` (configuration, modeling, ``naive.py``, and its
``SPEC`` in ``__init__``), or a spec module for a transformers model, and its line below. A
module whose one architecture comes in several registered settings lists them as ``SPECS``.
"""

from __future__ import annotations

import importlib

from .gpt2 import TRANSFORMER_CPU_BUDGET
from .spec import CpuBudget, ModelSpec

# In the order the command line lists them.
MODEL_MODULES = (
    "dense_ssm",
    "lstm",
    "gpt2",
    "mamba",
    # The second study's transformers: absolute positions trained from random offsets, and
    # rotary positions (transformers' Llama classes).
    "gpt2_offset",
    "rope",
    # transformers' own recurrent and hybrid models: Mamba-2, xLSTM (mLSTM), and gated
    # delta-rule layers with attention every fourth layer (OLMo Hybrid).
    "mamba2",
    "xlstm",
    "hybrid",
    # Delta-rule models, gated or not, with eigenvalues in [0, 1] or [-1, 1] (four names).
    "deltanet",
)


def _specs(module_name: str) -> tuple[ModelSpec, ...]:
    module = importlib.import_module(f"{__package__}.{module_name}")
    return getattr(module, "SPECS", None) or (module.SPEC,)


SPECS: dict[str, ModelSpec] = {
    spec.name: spec for module_name in MODEL_MODULES for spec in _specs(module_name)
}
MODEL_NAMES: tuple[str, ...] = tuple(SPECS)

# Any causal LM transformers can build from a config: "hf:FOLDER" or "hf:ORG/NAME", trained
# from scratch at the task's vocabulary.
HF_PREFIX = "hf:"
# A checkpoint whose weights are fine-tuned, through its own tokenizer ("pretrained:FOLDER"
# or "pretrained:ORG/NAME"): models/pretrained.py.
PRETRAINED_PREFIX = "pretrained:"
# Names that are a path or Hub id after their prefix.
SOURCE_PREFIXES = (HF_PREFIX, PRETRAINED_PREFIX)
# Nearly every causal LM on the Hub is a transformer, and Adam at the recurrent models' rates
# (3e-2, 1e-2) throws a transformer off its loss plateaus for good: an hf: model trains at
# the transformers' budget.
HF_CPU_BUDGET: CpuBudget = TRANSFORMER_CPU_BUDGET


def _unknown(name: str) -> ValueError:
    return ValueError(
        f"unknown model {name!r}; allowed: {list(MODEL_NAMES)}, '{HF_PREFIX}PATH_OR_REPO_ID' "
        f"(from scratch) or '{PRETRAINED_PREFIX}PATH_OR_REPO_ID' (its weights fine-tuned)"
    )


def model_spec(name: str) -> ModelSpec:
    """The spec of a registered model (ValueError for another name)."""
    if name not in SPECS:
        raise _unknown(name)
    return SPECS[name]


def config_class(name: str):
    """The `PreTrainedConfig` subclass of a registered model (ValueError for another name),
    with our own models registered with the Auto classes."""
    return model_spec(name).config_class()


def register_all() -> None:
    """Register every model of ours with the Auto classes, so that ``AutoConfig`` reads a
    saved config of any of them (``hf:FOLDER``)."""
    for spec in SPECS.values():
        spec.config_class()


def pretrained_spec(name: str) -> str | None:
    """The folder or Hub id of a ``pretrained:`` name; None for any other name."""
    return name[len(PRETRAINED_PREFIX):] if name.startswith(PRETRAINED_PREFIX) else None


def cpu_budget(name: str) -> CpuBudget:
    """How a model trains under ``--preset cpu``: its spec's, or `HF_CPU_BUDGET` for an hf: or
    pretrained: model (ValueError for another name)."""
    return HF_CPU_BUDGET if name.startswith(SOURCE_PREFIXES) else model_spec(name).cpu_budget


def check_model_name(name: str) -> None:
    """What can be told of a model name without importing torch: a registered name, a folder
    that holds a config.json, or a well-formed Hub repo id (ValueError naming the fault).
    Whether a Hub id exists is only known when its config is fetched."""
    if not name.startswith(SOURCE_PREFIXES):
        model_spec(name)
        return
    from pathlib import Path

    path = name.split(":", 1)[1]
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
