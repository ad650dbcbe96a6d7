"""The refined search: bracket N* geometrically from a small N, then bisect in log space."""

from __future__ import annotations

from .outcome import Probe
from .probing import SearchLog, bisect, descend
from .result import SearchResult
from .settings import SearchSettings


def refined_search(
    probe: Probe, pool_size: int, settings: SearchSettings | None = None
) -> SearchResult:
    """Find N* within a relative tolerance with few probes.

    1. Probe n0 = min(n_start, n_cap), where n_cap = min(n_max, pool_size).
    2. Bracket. If n0 fails, multiply by growth (capped at n_cap, so n_cap itself is the
       last probe) until a size succeeds; if n_cap fails, N* is None. If n0 succeeds,
       divide by growth (clamped to 1) until a size fails or N = 1 succeeds (then N* = 1,
       exact, largest_failing = 0). Either way the bracket has a real failure below a
       real success.
    3. Bisect (midpoint: settings.midpoint, geometric by default) until
       hi / lo <= 1 + rtol or hi - lo <= 1.
    At most settings.max_search_steps probes run; converged=False says they ran out first.
    """
    settings = settings or SearchSettings(mode="refined")
    log = SearchLog("refined", probe, pool_size, settings)
    n_cap = log.n_cap

    lo: int | None = None
    hi: int | None = None
    n0 = min(settings.n_start, n_cap)
    if log.succeeds(n0):
        lo, hi = descend(log, n0, settings.growth)
    else:
        lo = n0
        while lo < n_cap and not log.exhausted:
            n = min(n_cap, lo * settings.growth)
            if log.succeeds(n):
                hi = n
                break
            lo = n

    def closed(a: int, b: int) -> bool:
        return b - a <= 1 or b <= a * (1 + settings.rtol)

    if lo is not None and hi is not None:
        lo, hi = bisect(log, lo, hi, settings.midpoint, closed)
        converged = closed(lo, hi)
    else:
        # Without a success, the search is done exactly when n_cap itself failed.
        converged = hi is None and lo == n_cap
    return log.result(lo, hi, converged)
