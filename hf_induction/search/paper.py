"""Algorithm 1 of the paper: a geometric phase down from N_max, then bisection."""

from __future__ import annotations

from .outcome import Probe
from .probing import SearchLog, bisect, descend
from .result import SearchResult
from .settings import SearchSettings


def paper_search(
    probe: Probe, pool_size: int, settings: SearchSettings | None = None
) -> SearchResult:
    """Find N* as Algorithm 1 does.

    1. N = min(n_max, pool_size). If it fails, N* is None: not learnable within the pool
       and budget.
    2. Geometric phase: while N succeeds, N = max(1, N // M). N // M rounds down and is
       clamped to 1 because a training set holds at least one example; if N = 1 succeeds,
       N* = 1 exactly.
    3. Binary phase: after the first failure, bisect between the last failure and the last
       success (midpoint rule: settings.midpoint), until hi - lo <= 1, i.e. until the two
       are neighbours and N* is exact.
    At most settings.max_search_steps probes run in all (the paper's S = 20); when they run
    out first, the result carries converged=False and the bracket reached so far.
    """
    settings = settings or SearchSettings(mode="paper")
    log = SearchLog("paper", probe, pool_size, settings)
    n_cap = log.n_cap

    # The log holds at least one probe (max_search_steps >= 1), so n_cap is always probed.
    lo: int | None = n_cap
    hi: int | None = None
    if log.succeeds(n_cap):
        lo, hi = descend(log, n_cap, settings.factor)

    converged = lo is not None
    if lo is not None and hi is not None:
        lo, hi = bisect(log, lo, hi, settings.midpoint, lambda a, b: b - a <= 1)
        converged = hi - lo <= 1
    return log.result(lo, hi, converged)
