"""The N* campaign: from command-line arguments to searches, probes, journals and κ rows.

This is the one room that knows every other: it turns a cell and a model into training
data and a model factory, wraps ``train_grid`` as a resumable probe for the search, and
spreads searches over processes with Accelerate. ``hf_induction/commands/nstar.py`` is its
command line. Attributes load on first use, so the budgets and the sweep grammar are read
without importing torch.
"""

from __future__ import annotations

import importlib

_LAZY = {
    "BUDGETS": "budgets", "Budget": "budgets", "SearchJob": "job", "plan_jobs": "job",
    "JournalProbe": "probe", "Campaign": "run", "print_tables": "run", "run_campaign": "run",
}

__all__ = list(_LAZY)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value
