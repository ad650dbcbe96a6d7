"""Leaderboard entries: one per κ row (dataset × group × format × L × model), and their order.

Entries are sorted by dataset, group, format and L, then by κ, largest first (an undefined κ
by the bound its table shows, one nothing bounds last). The leaderboard's tables, its
figures (`hub.plots`) and the Space all read them (their columns are
`results.render.BOARD_KAPPA_COLUMNS`); this module needs neither.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from .. import tasks
from ..results import KappaRow


def _cell_of(dataset: str, config: str) -> tuple[str, str, int | None]:
    """(variant, kind, L) of a config name, e.g. ("Z_5", "acot", 10) or ("V16", "UR", 10);
    unparseable names keep what can be read."""
    cell = tasks.parse_or_none(dataset, config)
    if cell is None:
        return "?", config.split("_")[0], None
    return cell.variant, cell.kind, cell.max_len


@dataclass(frozen=True)
class Entry:
    """One row of the leaderboard."""

    dataset: str
    group: str
    format: str
    max_len: int | None
    model: str
    config: str
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    nstar_joint: int | None
    nstar_sum: int | None
    lengths: tuple[int, ...]
    nstar_by_length: tuple[int | None, ...]
    # Where N*_n was not found: the largest N that failed (N*_n lies above it).
    largest_failing_by_length: tuple[int | None, ...] = ()
    largest_failing_joint: int | None = None
    # The class of the group's word problem, "TC0" (solvable) or "NC1-complete"; None where
    # the task is no group's (`tasks.group_facts`).
    word_problem: str | None = None

    @classmethod
    def from_row(cls, row: KappaRow) -> Entry:
        group, fmt, max_len = _cell_of(row.dataset, row.config)
        by_length = tuple(row.nstar_by_length)
        total = None if any(n is None for n in by_length) else sum(by_length)
        return cls(
            dataset=row.dataset, group=group, format=fmt, max_len=max_len, model=row.model,
            config=row.config, kappa=row.kappa, kappa_low=row.kappa_low,
            kappa_high=row.kappa_high, nstar_joint=row.nstar_joint, nstar_sum=total,
            lengths=tuple(row.lengths), nstar_by_length=by_length,
            largest_failing_by_length=tuple(row.largest_failing_by_length),
            largest_failing_joint=row.largest_failing_joint,
            word_problem=row.word_problem,
        )

    @property
    def label(self) -> str:
        """The dataset and group, as a figure's title names them ("modadd Z_5")."""
        return f"{self.dataset} {self.group}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def kappa_sort_value(e: Entry) -> float:
    """κ where defined, else the bound the table shows (the lower one, else the upper): what
    a column of κ sorts by; a κ nothing bounds sorts last."""
    for value in (e.kappa, e.kappa_low or None, e.kappa_high):
        if value is not None and math.isfinite(value):
            return value
    return -math.inf


def sort_key(e: Entry) -> tuple:
    return (e.dataset, e.group, e.format, e.max_len or 0, -kappa_sort_value(e), e.model)


def leaderboard_entries(rows: Iterable[KappaRow]) -> list[Entry]:
    """One entry per κ key (the last row wins, as for a rerun), sorted."""
    latest = {row.key: row for row in rows}
    return sorted((Entry.from_row(r) for r in latest.values()), key=sort_key)
