"""One entry point for the CLI: run the search that the settings name."""

from __future__ import annotations

from .outcome import Probe
from .paper import paper_search
from .refined import refined_search
from .result import SearchResult
from .settings import SearchSettings


def run_search(probe: Probe, pool_size: int, settings: SearchSettings,
               hint: int | None = None) -> SearchResult:
    """Dispatch on settings.mode, so callers never branch on the search algorithm.

    ``hint``, the N* of a solved neighbour, warm-starts the refined search (`warm_start`);
    the paper's Algorithm 1 always starts at N_max, so it has no use for one."""
    if settings.mode == "paper":
        return paper_search(probe, pool_size, settings)
    return refined_search(probe, pool_size, settings, hint=hint)
