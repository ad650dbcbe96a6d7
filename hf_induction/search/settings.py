"""Settings of the N* search: which algorithm, and the choices the paper leaves open."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..settings import SEARCH, check_fields, defaults
from ..settings.search_modes import DEFAULT_MIDPOINT, MIDPOINTS, MODES, PAPER_N_MAX, Midpoint, Mode

__all__ = ["DEFAULT_MIDPOINT", "MIDPOINTS", "MODES", "PAPER_N_MAX", "SearchSettings"]

# Each field's default is its declaration's (`settings.declared`); a test holds the fields
# and the declarations equal.
DEFAULTS = defaults(SEARCH)


@dataclass(frozen=True)
class SearchSettings:
    """How to search for N*.

    Shared:
        mode: "paper" (Algorithm 1) or "refined" (bracketing up from a small N, then
            log-space bisection to a relative tolerance).
        max_search_steps: S, the most probes one search may run (the paper: 20).
        midpoint: "geometric" (round(sqrt(lo*hi))) or "arithmetic" ((lo+hi)//2);
            None picks the mode's default (see DEFAULT_MIDPOINT).
        n_max: the largest N either mode probes; the pool size caps it further. The paper's
            value is 250,000 × 64; a smaller budget should pass max_steps × batch size.
    Paper mode:
        factor: M, the divisor of the geometric phase (the paper: 1000). N // M is
            clamped to 1, because a training set holds at least one example.
    Refined mode:
        n_start: the first N probed (capped at n_max and the pool).
        growth: the factor between bracketing probes. 4 rather than 2, because every probe
            below N* is a failure and a failing probe spends the whole step budget on all
            its runs; 4 halves their number for about one extra bisection step.
        rtol: bisection stops once hi / lo <= 1 + rtol (or hi - lo <= 1).
    """

    mode: Mode = DEFAULTS["mode"]
    max_search_steps: int = DEFAULTS["max_search_steps"]
    midpoint: Midpoint | None = DEFAULTS["midpoint"]
    n_max: int = DEFAULTS["n_max"]
    factor: int = DEFAULTS["factor"]
    n_start: int = DEFAULTS["n_start"]
    growth: int = DEFAULTS["growth"]
    rtol: float = DEFAULTS["rtol"]

    def __post_init__(self) -> None:
        # Every bound and choice is the declaration's; the midpoint, None for the mode's own,
        # is read here.
        check_fields(SEARCH, self)
        if self.midpoint is None:
            object.__setattr__(self, "midpoint", DEFAULT_MIDPOINT[self.mode])
        if self.midpoint not in MIDPOINTS:
            raise ValueError(
                f"midpoint must be one of {', '.join(MIDPOINTS)}; got {self.midpoint!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain JSON values, e.g. for protocol.json."""
        return asdict(self)
