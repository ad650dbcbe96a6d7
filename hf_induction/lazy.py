"""Module attributes loaded on first use (PEP 562), so that a package imports without torch."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(module: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``module``: ``names`` maps each attribute to the submodule
    that defines it, imported on first use; the value is then kept in the module."""
    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{module}.{names[name]}"), name)
        setattr(sys.modules[module], name, value)
        return value

    return __getattr__
