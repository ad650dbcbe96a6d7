"""The pieces both searches share: a memoising probe log (and the search log that writes the
result), the midpoint rule, and bisection."""

from __future__ import annotations

import math
from collections.abc import Callable

from .outcome import Probe, ProbeOutcome
from .result import SearchResult
from .settings import SearchSettings


class ProbeLog:
    """Runs probes for one search: each N at most once, at most ``limit`` probes in all."""

    def __init__(self, probe: Probe, limit: int) -> None:
        self._probe = probe
        self._limit = limit
        self._by_n: dict[int, ProbeOutcome] = {}

    @property
    def exhausted(self) -> bool:
        return len(self._by_n) >= self._limit

    @property
    def outcomes(self) -> tuple[ProbeOutcome, ...]:
        # Dicts keep insertion order, so this is the order the probes ran in.
        return tuple(self._by_n.values())

    def succeeds(self, n: int) -> bool:
        if n in self._by_n:
            return self._by_n[n].success
        if self.exhausted:
            raise RuntimeError(f"probe limit {self._limit} reached; the search must stop")
        outcome = self._probe(n)
        if not isinstance(outcome, ProbeOutcome) or outcome.n != n:
            raise TypeError(f"probe({n}) must return a ProbeOutcome with n={n}; got {outcome!r}")
        self._by_n[n] = outcome
        return outcome.success


class SearchLog(ProbeLog):
    """One search's probe log: it checks the pool, caps N at min(n_max, pool_size), and writes
    the result, so that every search reports its bracket the same way."""

    def __init__(self, mode: str, probe: Probe, pool_size: int, settings: SearchSettings) -> None:
        check_pool(pool_size)
        super().__init__(probe, settings.max_search_steps)
        self.mode = mode
        self.pool_size = pool_size
        self.n_cap = min(settings.n_max, pool_size)

    def result(self, lo: int | None, hi: int | None, converged: bool) -> SearchResult:
        """The result of a search whose last bracket is (lo failing, hi succeeding]."""
        return SearchResult(
            mode=self.mode,
            n_star=hi,
            largest_failing=lo,
            converged=converged,
            pool_size=self.pool_size,
            n_cap=self.n_cap,
            probes=self.outcomes,
        )


def midpoint(lo: int, hi: int, rule: str) -> int:
    """A size strictly between a failing ``lo`` and a succeeding ``hi`` (needs hi - lo >= 2)."""
    if rule == "arithmetic":
        mid = (lo + hi) // 2
    else:
        mid = round(math.sqrt(lo * hi))
    # Integer rounding may land on an end; a probe there would teach nothing.
    return min(max(mid, lo + 1), hi - 1)


def bisect(
    log: ProbeLog, lo: int, hi: int, rule: str, closed: Callable[[int, int], bool]
) -> tuple[int, int]:
    """Narrow (lo failing, hi succeeding] until ``closed(lo, hi)`` or the probe limit."""
    while not closed(lo, hi) and not log.exhausted:
        mid = midpoint(lo, hi, rule)
        if log.succeeds(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def descend(log: ProbeLog, hi: int, factor: int) -> tuple[int | None, int]:
    """From a succeeding ``hi``, divide by ``factor`` (clamped to 1, as a training set holds at
    least one example) until a size fails or 1 succeeds; the bracket (lo, hi) reached, with
    lo = 0 when 1 succeeded and lo = None when the probes ran out first."""
    while hi > 1 and not log.exhausted:
        n = max(1, hi // factor)
        if not log.succeeds(n):
            return n, hi
        hi = n
    return (0 if hi == 1 else None), hi


def check_pool(pool_size: int) -> None:
    if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
        raise ValueError(f"pool_size must be an integer >= 1; got {pool_size!r}")
