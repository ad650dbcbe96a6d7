"""The sharing factor κ = Σ_n N*_n / N*_joint, and bounds on it from search brackets."""

from __future__ import annotations

import math
from collections.abc import Mapping

Bracket = tuple[int | None, int | None]
"""(largest_failing, n_star) of one search: the true N* lies in (largest_failing, n_star]."""


def kappa(nstar_by_length: Mapping[int, int | None], nstar_joint: int | None) -> float:
    """κ from N*_n for each length n and N*_joint on all lengths together.

    Returns nan when any N* is None (not learnable within its pool and budget): κ is then
    undefined, and ``kappa_bounds`` says what is still known.
    """
    if not nstar_by_length:
        raise ValueError("kappa needs N* for at least one length")
    values = list(nstar_by_length.values())
    if nstar_joint is None or any(v is None for v in values):
        return math.nan
    return sum(values) / nstar_joint


def _interval(bracket: Bracket) -> tuple[float, float]:
    # The smallest and largest N* a bracket allows: an unknown failure means only
    # N* >= 1 is known, and a missing success means N* may be unbounded.
    largest_failing, n_star = bracket
    low = 1 if largest_failing is None else largest_failing + 1
    high = math.inf if n_star is None else n_star
    return float(low), float(high)


def kappa_bounds(
    brackets_by_length: Mapping[int, Bracket], joint: Bracket
) -> tuple[float, float]:
    """The range of κ that the search brackets allow: (low, high), high may be inf.

    Each N* lies in (largest_failing, n_star]; the lowest κ pairs the smallest N*_n with
    the largest N*_joint, the highest κ the other way round. With exact brackets
    (hi - lo <= 1) both bounds equal ``kappa``.
    """
    if not brackets_by_length:
        raise ValueError("kappa_bounds needs a bracket for at least one length")
    intervals = [_interval(b) for b in brackets_by_length.values()]
    joint_low, joint_high = _interval(joint)
    low = sum(lo for lo, _ in intervals) / joint_high
    high = sum(hi for _, hi in intervals) / joint_low
    return low, high
