"""Settings of the N* search: which algorithm, and the choices the paper leaves open."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Mode = Literal["paper", "refined"]
Midpoint = Literal["geometric", "arithmetic"]

MODES: tuple[str, ...] = ("paper", "refined")
MIDPOINTS: tuple[str, ...] = ("geometric", "arithmetic")

# The paper's N_max: every sample its 250,000-step budget at batch 64 can draw.
PAPER_N_MAX = 250_000 * 64

# Where the midpoint is None, each mode takes its own default:
# - paper: "arithmetic", the plain reading of "binary search" in Algorithm 1;
# - refined: "geometric", so each step halves the bracket in log space, the scale on
#   which rtol is measured.
DEFAULT_MIDPOINT: dict[str, str] = {"paper": "arithmetic", "refined": "geometric"}


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

    mode: Mode = "refined"
    max_search_steps: int = 20
    midpoint: Midpoint | None = None
    n_max: int = PAPER_N_MAX
    factor: int = 1000
    n_start: int = 16
    growth: int = 4
    rtol: float = 0.1

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"search mode must be one of {', '.join(MODES)}; got {self.mode!r}")
        if self.midpoint is None:
            object.__setattr__(self, "midpoint", DEFAULT_MIDPOINT[self.mode])
        if self.midpoint not in MIDPOINTS:
            raise ValueError(
                f"midpoint must be one of {', '.join(MIDPOINTS)}; got {self.midpoint!r}"
            )
        for name, least in (("max_search_steps", 1), ("n_max", 1), ("factor", 2),
                            ("n_start", 1), ("growth", 2)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{name} must be an integer >= {least}; got {value!r}")
        if not self.rtol > 0:
            raise ValueError(f"rtol must be > 0; got {self.rtol!r}")

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain JSON values, e.g. for protocol.json."""
        return asdict(self)
