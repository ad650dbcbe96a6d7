"""The N* campaign: from command-line arguments to searches, probes, journals and κ rows.

This is the one room that knows every other: it turns a cell and a model into training
data and a model factory, wraps ``train_grid`` as a resumable probe for the search, and
spreads searches over processes with Accelerate. ``hf_induction/commands/nstar.py`` is its
command line. Attributes load on first use, so the budgets and the sweep grammar are read
without importing torch.
"""

from __future__ import annotations

from ..lazy import lazy_attributes

_LAZY = {
    "BUDGETS": "budgets", "Budget": "budgets", "SearchJob": "job", "plan_jobs": "job",
    "JournalProbe": "probe", "Campaign": "run", "print_tables": "run", "run_campaign": "run",
}

__all__ = list(_LAZY)


__getattr__ = lazy_attributes(__name__, _LAZY)
