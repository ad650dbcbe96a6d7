"""The model registry: one line per model, naming the module whose `SPEC` says everything the
package knows of it (`spec.ModelSpec`). Specs load without torch, so that a command line can
list the models and check its arguments first.

Adding a model: a folder ``models/<name>/`` (configuration, modeling, ``naive.py``, and its
``SPEC`` in ``__init__``), or a spec module for a transformers model, and its line below. A
module whose one architecture comes in several registered settings lists them as ``SPECS``.

A model of your own needs no edit here. ``--model`` (and `model_spec`) also takes:

- a name an installed package declares in the entry-point group ``hf_induction.models``, whose
  object is a `ModelSpec` or a list of them (its ``pyproject.toml``:
  ``[project.entry-points."hf_induction.models"]`` ``my_rnn = "my_pkg.spec:SPEC"``); the
  spec's ``name`` is the name ``--model`` takes, and it may not be one of ours;
- ``path/to/file.py:NAME``, the `ModelSpec` a Python file holds as ``NAME``;
- ``module:NAME``, the `ModelSpec` an importable module holds as ``NAME``.

Results record the name as given and the hash of the config it built, as for ``hf:`` models,
so an outside model's rows never share a key with one of ours. Keep the module that holds a
spec free of torch where you can (``config`` and ``auto_classes`` may be ``"module:Class"``
strings, imported on first use), as ours are: ``--help`` reads the installed specs.
`hf_induction.training.contract.check_model` tells whether a model does what the trainer asks
of it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import sys
import types
from importlib.metadata import entry_points
from pathlib import Path
from typing import NamedTuple

from .gpt2 import TRANSFORMER_CPU_BUDGET
from .source import CheckpointSource, ConfigSource, ModelSource, SpecSource
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
    # Delta-rule models, gated or not, with eigenvalues in [0, 1] or [-1, 1] (four names), and
    # DeltaProduct, n_h delta-rule steps per token (four settings).
    "deltanet",
    # RWKV-7: the generalized delta rule, with vector-valued decay and learning rate.
    "rwkv7",
    # The delta-rule settings today's LLMs ship (eigenvalues in [0, 1]): Qwen3-Next's gated
    # delta rule and Kimi Delta Attention, each with attention every fourth layer
    # (transformers' classes).
    "qwen3_next",
    "kimi_linear",
    # Mamba-2's layer with its transition's eigenvalues real in [0, 1], real in [-1, 1]
    # (negative-eigenvalue Mamba) or complex (Mamba-3's rotations): three settings.
    "selective_ssm",
    # Mamba-3 as published: the trapezoidal rule, rotations, data-dependent decay, normed B and
    # C with biases, no convolution.
    "mamba3",
    # A transformer whose positions are products of data-dependent Householder matrices (PaTH
    # attention).
    "path_attn",
    # PD-SSM: transitions a column one-hot matrix times a complex diagonal, so that one layer
    # can follow any automaton.
    "pd_ssm",
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


# Where installed packages declare their models (`ModelSpec`, or a list of them).
ENTRY_POINT_GROUP = "hf_induction.models"
# The two forms that name a spec of one's own directly: "path/to/file.py:NAME", "module:NAME".
OUTSIDE_FORMS = "'FILE.py:NAME' or 'MODULE:NAME' (a ModelSpec of your own)"


class Installed(NamedTuple):
    """The models installed packages declare (entry points), and why any could not be read."""

    specs: dict[str, ModelSpec]
    problems: tuple[str, ...]


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__


def _specs_of(obj) -> list[ModelSpec] | None:
    """The specs an entry point's object holds: one spec or a list (tuple) of them."""
    if isinstance(obj, ModelSpec):
        return [obj]
    if isinstance(obj, (list, tuple)) and obj and all(isinstance(s, ModelSpec) for s in obj):
        return list(obj)
    return None


# Keyed by sys.path: a folder put on it later (a package installed meanwhile) is read again.
@functools.lru_cache(maxsize=4)
def _installed(path: tuple[str, ...]) -> Installed:
    specs: dict[str, ModelSpec] = {}
    problems = []
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(entry.dist, "name", None)
        where = f"entry point {entry.name!r}" + (f" of {dist}" if dist else "")
        try:
            found = _specs_of(entry.load())
        except Exception as e:  # a broken package must not stop the others' models
            problems.append(f"{where} failed to load ({_first_line(e)})")
            continue
        if found is None:
            problems.append(f"{where} is not a ModelSpec or a list of them")
            continue
        for spec in found:
            if spec.name in SPECS or spec.name in specs or ":" in spec.name:
                problems.append(f"{where}: model name {spec.name!r} is taken (or holds ':')")
            else:
                specs[spec.name] = spec
    return Installed(specs, tuple(problems))


def installed() -> Installed:
    """The models installed packages declare in `ENTRY_POINT_GROUP`, read once per sys.path."""
    return _installed(tuple(sys.path))


def model_names() -> tuple[str, ...]:
    """Every plain name ``--model`` takes: ours (`MODEL_NAMES`), then the installed ones."""
    return MODEL_NAMES + tuple(installed().specs)


def _unknown(name: str, problems: tuple[str, ...] = ()) -> ValueError:
    unread = f"; not read: {'; '.join(problems)}" if problems else ""
    return ValueError(
        f"unknown model {name!r}; allowed: {list(model_names())}, '{HF_PREFIX}PATH_OR_REPO_ID' "
        f"(from scratch), '{PRETRAINED_PREFIX}PATH_OR_REPO_ID' (its weights fine-tuned) or "
        f"{OUTSIDE_FORMS}{unread}"
    )


def is_outside_name(name: str) -> bool:
    """Whether ``name`` names a spec by file or module (``WHERE:NAME``, not hf: or pretrained:)."""
    return ":" in name and not name.startswith(SOURCE_PREFIXES)


def _file_module(name: str, path: str):
    """The module of a Python file, imported once as ``_hf_induction_file_<hash>.<stem>``.

    Its classes need a module in sys.modules (dataclasses and annotations look it up), one
    per file wherever two files share a name; and a checkpoint saved with its code names the
    module by its last part, the file's stem, beside the file it copies (``auto_map``)."""
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise ValueError(f"model {name}: no such file {path}")
    folder = f"_hf_induction_file_{hashlib.sha256(str(file).encode()).hexdigest()[:12]}"
    module_name = f"{folder}.{file.stem}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    package = sys.modules.setdefault(folder, types.ModuleType(folder))
    package.__path__ = [str(file.parent)]
    module_spec = importlib.util.spec_from_file_location(module_name, file)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[module_name]
        raise ValueError(f"model {name}: importing {path} failed ({_first_line(e)})") from None
    return module


def _module(name: str, module_name: str):
    if not all(part.isidentifier() for part in module_name.split(".")):
        raise _unknown(name)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and (module_name + ".").startswith(e.name + "."):
            raise ValueError(f"model {name}: no module named {module_name!r} on the path "
                             f"(a file is named as path/to/file.py:NAME)") from None
        raise ValueError(f"model {name}: importing {module_name} failed "
                         f"({_first_line(e)})") from None
    except Exception as e:
        raise ValueError(f"model {name}: importing {module_name} failed "
                         f"({_first_line(e)})") from None


@functools.cache
def _outside_spec(name: str) -> ModelSpec:
    """The spec ``WHERE:NAME`` names, under the name as given (the name results record)."""
    where, attr = name.rsplit(":", 1)
    module = _file_module(name, where) if where.endswith(".py") else _module(name, where)
    if not attr.isidentifier() or not hasattr(module, attr):
        held = sorted(k for k, v in vars(module).items() if isinstance(v, ModelSpec))
        raise ValueError(f"model {name}: {where} has no attribute {attr!r}; its ModelSpecs: "
                         f"{held or 'none'}")
    spec = getattr(module, attr)
    if not isinstance(spec, ModelSpec):
        raise ValueError(f"model {name}: {attr} is a {type(spec).__name__}, not a ModelSpec "
                         f"(hf_induction.models.spec)")
    return dataclasses.replace(spec, name=name)


def model_spec(name: str) -> ModelSpec:
    """The spec of a model: ours, an installed package's (entry point), or the one
    ``FILE.py:NAME`` or ``MODULE:NAME`` names (ValueError, one line, for another name)."""
    if name in SPECS:
        return SPECS[name]
    if is_outside_name(name):
        return _outside_spec(name)
    found = installed()
    if name in found.specs:
        return found.specs[name]
    raise _unknown(name, found.problems)


def register_all() -> None:
    """Register every model of ours with the Auto classes, so that ``AutoConfig`` reads a
    saved config of any of them (``hf:FOLDER``)."""
    for spec in SPECS.values():
        spec.config_class()


def _checked_where(name: str, prefix: str) -> str:
    """The folder or Hub id after an hf: or pretrained: prefix: a folder that holds a
    config.json, or a well-formed Hub repo id (ValueError naming the fault). Whether a Hub id
    exists is only known when its config is fetched."""
    where = name[len(prefix):]
    if Path(where).is_dir():
        if not (Path(where) / "config.json").is_file():
            raise ValueError(f"--model {name}: the folder {where} holds no config.json")
        return where
    if where.startswith(("/", ".", "~")) or where.count("/") > 1:
        raise ValueError(f"--model {name}: no such folder, and not a Hub repo id (ORG/NAME)")
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(where)
    except HFValidationError as e:
        raise ValueError(f"--model {name}: no such folder, and not a Hub repo id "
                         f"({str(e).splitlines()[0]})") from None
    return where


# The sources a prefix names, each trained at the transformers' budget (`HF_CPU_BUDGET`).
_PREFIXED: dict[str, type[ModelSource]] = {
    HF_PREFIX: ConfigSource,
    PRETRAINED_PREFIX: CheckpointSource,
}


def model_source(name: str) -> ModelSource:
    """The one lookup of a model name: which kind of source it is, with its spec or its folder
    or Hub id, and its CPU budget (ValueError, one line, naming the fault). What can be told
    before any model is built is told here: a spec a file or module holds is imported now
    (keep it torch-free), an hf: or pretrained: folder must hold a config.json, and a Hub id
    must be well formed. The plan calls it once per name and hands the source on."""
    for prefix, kind in _PREFIXED.items():
        if name.startswith(prefix):
            return kind(name, HF_CPU_BUDGET, _checked_where(name, prefix))
    spec = model_spec(name)
    return SpecSource(name, spec.cpu_budget, spec)


def source_of(model: ModelSource | ModelSpec | str) -> ModelSource:
    """A source as it is, a spec as its source, and a name looked up (`model_source`)."""
    if isinstance(model, ModelSource):
        return model
    if isinstance(model, ModelSpec):
        return SpecSource(model.name, model.cpu_budget, model)
    return model_source(model)
