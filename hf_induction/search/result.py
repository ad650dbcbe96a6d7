"""What a search reports: N*, the bracket around it, and every probe it ran."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .outcome import ProbeOutcome

# How a search ended, in the words every table shows ("converged" said yes beside searches
# that found no N*, and beside searches whose every run had diverged).
BRACKET_CLOSED = "bracket closed"
BRACKET_ON_DIVERGED = "bracket closed; its failing size diverged"
LARGEST_FAILED = "largest size failed"
ALL_DIVERGED = "every run diverged"
PROBE_LIMIT = "probe limit reached"
NO_PROBE = "no probe ran"
SEARCH_ENDS = (BRACKET_CLOSED, BRACKET_ON_DIVERGED, LARGEST_FAILED, ALL_DIVERGED, PROBE_LIMIT,
               NO_PROBE)


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one N* search.

    The true N* lies in ``(largest_failing, n_star]``:
        n_star: the smallest N that succeeded; None when even ``n_cap`` failed, which
            reads "not learnable within the pool and budget".
        largest_failing: the largest N below n_star that failed. 0 when n_star is 1
            (nothing smaller exists, so N* is exact). None when no failure was seen
            (the step limit ran out while every probe succeeded).
        converged: True when the search met its stopping rule (paper: hi - lo <= 1;
            refined: hi / lo <= 1 + rtol or hi - lo <= 1), or showed n_cap fails;
            False when max_search_steps ran out first. Tables show `end`, which names
            which of these it was (and a failing size where every run diverged).
        pool_size: the number of distinct training examples available.
        n_cap: the largest N the search could probe, min(settings.n_max, pool_size).
        probes: every probe, in the order run; no N appears twice.
    """

    mode: str
    n_star: int | None
    largest_failing: int | None
    converged: bool
    pool_size: int
    n_cap: int
    probes: tuple[ProbeOutcome, ...]

    @property
    def total_steps(self) -> int:
        return sum(p.steps for p in self.probes)

    @property
    def wall_s(self) -> float:
        return sum(p.wall_s for p in self.probes)

    @property
    def num_probes(self) -> int:
        return len(self.probes)

    @property
    def bracket(self) -> tuple[int | None, int | None]:
        """(largest_failing, n_star): the input of ``kappa_bounds``."""
        return self.largest_failing, self.n_star

    @property
    def diverged_probes(self) -> tuple[ProbeOutcome, ...]:
        """The probes at which every run's loss went to inf or NaN."""
        return tuple(p for p in self.probes if p.all_diverged)

    @property
    def end(self) -> str:
        """How the search ended, one of `SEARCH_ENDS`. A failing size where every run
        diverged is named: it measured the learning rates, not the data."""
        if not self.probes:
            return NO_PROBE
        if not self.converged:
            return PROBE_LIMIT
        failing = next((p for p in self.probes if p.n == self.largest_failing), None)
        diverged = failing is not None and failing.all_diverged
        if self.n_star is None:
            return ALL_DIVERGED if diverged else LARGEST_FAILED
        return BRACKET_ON_DIVERGED if diverged else BRACKET_CLOSED

    def summary(self) -> str:
        """One line for a progress log or the final print."""
        plural = "" if self.num_probes == 1 else "s"
        cost = f"{self.num_probes} probe{plural}, {self.total_steps:,} steps"
        if self.n_star is None:
            if self.largest_failing is None:
                return f"{self.mode}: no probe ran; {cost}"
            return f"{self.mode}: N* > {self.largest_failing:,} ({self.end}); {cost}"
        low = self.largest_failing
        where = "largest failing unknown" if low is None else f"largest failing {low:,}"
        if low is not None and self.n_star - low <= 1:
            where += ", exact"
        elif low:
            where += f", within {100 * (self.n_star / low - 1):.3g}%"
        tail = "" if self.converged else "; step limit reached before the stopping rule"
        return f"{self.mode}: N* = {self.n_star:,} ({where}); {cost}{tail}"

    def to_dict(self) -> dict[str, Any]:
        # The fields in order, with the steps they add up to before the probes.
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "probes"}
        return {**data, "total_steps": self.total_steps,
                "probes": [p.to_dict() for p in self.probes]}
