"""What the package knows of a model, in one place: its config class and Auto classes, its
presets, its FLOP count and its CPU budget (`ModelSpec`).

Each model's spec sits in its folder's ``__init__`` (or, for a transformers model, in a spec
module) and is listed by one line in `registry.py`. Specs load without torch or transformers,
so that a command line can list the models and check its arguments first; the classes load
on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

PRESET_NAMES = ("paper", "tiny")
# What a model's CPU budget sets in place of its budget preset's values.
BUDGET_FIELDS = ("max_steps", "eval_every", "lrs")


@dataclass(frozen=True)
class CpuBudget:
    """How a model trains under ``--budget cpu``: its learning rates and pace. A flag given on
    the command line wins over it."""

    lrs: tuple[float, ...]
    max_steps: int
    eval_every: int

    def fields(self) -> dict[str, Any]:
        """{field: value} for `BUDGET_FIELDS`, as a budget preset's ``per_model`` holds them."""
        return {name: getattr(self, name) for name in BUDGET_FIELDS}


def load_object(path):
    """The object a ``"module:attribute"`` path names, imported now; an object (a spec of
    one's own may hold its classes themselves) is returned as it is."""
    if not isinstance(path, str):
        return path
    module, attr = path.split(":")
    return getattr(importlib.import_module(module), attr)


# Config classes ("module:Class") whose Auto classes are registered in this process: one
# architecture registered under several names (DeltaNet's settings) registers once.
_REGISTERED: set[str] = set()


@dataclass(frozen=True)
class ModelSpec:
    """One model, as the builder, the FLOP count and the runner's budgets see it.

    Args:
        name: the name ``--model`` takes.
        config: ``"module:Class"`` of its `PreTrainedConfig` (or, in a spec of one's own, the
            class itself).
        presets: config keyword arguments per preset (`PRESET_NAMES`); the builder adds the
            vocabulary and special tokens.
        flops_per_token: forward FLOPs per token, ``(config, sequence length) -> float``
            (matrix products, 2 per multiply-add).
        cpu_budget: how it trains under ``--budget cpu``.
        auto_classes: {Auto class name: ``"module:Class"``} for a model of ours, registered
            with transformers' Auto classes and saved with its code (``trust_remote_code``);
            empty for transformers' own classes. Values may be the classes themselves.
    """

    name: str
    config: str | type
    presets: Mapping[str, Mapping[str, Any]]
    flops_per_token: Callable[[Any, int], float]
    cpu_budget: CpuBudget
    auto_classes: Mapping[str, str | type] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if set(self.presets) != set(PRESET_NAMES):
            raise ValueError(f"model {self.name!r}: presets {sorted(self.presets)}; each model "
                             f"needs exactly {list(PRESET_NAMES)}")

    def config_class(self) -> type:
        """Its config class, with its own classes registered with the Auto classes first."""
        config_class = load_object(self.config)
        if self.auto_classes and self.config not in _REGISTERED:
            import transformers

            transformers.AutoConfig.register(config_class.model_type, config_class, exist_ok=True)
            # A saved checkpoint then carries this code and an auto_map, for
            # trust_remote_code=True.
            config_class.register_for_auto_class()
            for auto, path in self.auto_classes.items():
                model_class = load_object(path)
                getattr(transformers, auto).register(config_class, model_class, exist_ok=True)
                model_class.register_for_auto_class(auto)
            _REGISTERED.add(self.config)
        return config_class

    def exports(self, module: str, names: Mapping[str, str]) -> Callable[[str], Any]:
        """A module ``__getattr__`` for a model folder: ``names`` maps each class or function
        to its submodule, imported on first use after the Auto classes are registered."""
        def __getattr__(name: str):
            if name not in names:
                raise AttributeError(f"module {module!r} has no attribute {name!r}")
            self.config_class()
            return getattr(importlib.import_module(f"{module}.{names[name]}"), name)

        return __getattr__
