"""The N* campaign: from command-line arguments to searches, probes, journals and κ rows.

This is the one room that knows every other: it turns a cell and a model into training
data and a model factory, wraps ``train_grid`` as a resumable probe for the search, and
spreads searches over processes with Accelerate. ``scripts/nstar.py`` is its thin CLI.
"""

from .budgets import BUDGETS, Budget
from .job import SearchJob, plan_jobs
from .probe import JournalProbe
from .run import Campaign, print_tables, run_campaign

__all__ = [
    "BUDGETS", "Budget", "Campaign", "JournalProbe", "SearchJob", "plan_jobs", "print_tables",
    "run_campaign",
]
