"""Leaderboard entries: one per κ row (task × group × format × L × model), and their order.

Entries are sorted by task, group, format and L, then by κ, largest first (an undefined κ
by the bound its table shows, one nothing bounds last). The leaderboard's tables, its
figures (`hub.plots`) and the Space all read them; this module needs neither.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .. import tasks
from ..results import KappaRow, kappa_bounds_text, kappa_text, missing_nstar, nstar_bracket
from ..results.render import number


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

    task: str
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

    @classmethod
    def from_row(cls, row: KappaRow) -> Entry:
        group, fmt, max_len = _cell_of(row.dataset, row.config)
        by_length = tuple(row.nstar_by_length)
        total = None if any(n is None for n in by_length) else sum(by_length)
        return cls(
            task=row.dataset, group=group, format=fmt, max_len=max_len, model=row.model,
            config=row.config, kappa=row.kappa, kappa_low=row.kappa_low,
            kappa_high=row.kappa_high, nstar_joint=row.nstar_joint, nstar_sum=total,
            lengths=tuple(row.lengths), nstar_by_length=by_length,
            largest_failing_by_length=tuple(row.largest_failing_by_length),
            largest_failing_joint=row.largest_failing_joint,
        )

    @property
    def task_label(self) -> str:
        return f"{self.task} {self.group}"

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
    return (e.task, e.group, e.format, e.max_len or 0, -kappa_sort_value(e), e.model)


def leaderboard_entries(rows: Iterable[KappaRow]) -> list[Entry]:
    """One entry per κ key (the last row wins, as for a rerun), sorted."""
    latest = {row.key: row for row in rows}
    return sorted((Entry.from_row(r) for r in latest.values()), key=sort_key)


def kappa_table_lines(entries: Sequence[Entry]) -> list[dict[str, str]]:
    """The entries as `results.render.BOARD_KAPPA_COLUMNS` lines (the markdown and the Space
    share them). The κ column is never blank: an undefined κ shows its bounds."""
    return [
        {"task": e.task, "group": e.group, "format": e.format, "L": number(e.max_len),
         "model": e.model, "κ": kappa_text(e.kappa, e.kappa_low, e.kappa_high),
         "κ range": kappa_bounds_text(e.kappa_low, e.kappa_high),
         "N* missing": missing_nstar(e.lengths, e.nstar_by_length, e.nstar_joint),
         "N*_joint": number(e.nstar_joint),
         "N*_joint bracket": nstar_bracket(e.nstar_joint, e.largest_failing_joint),
         "Σ N*_n": number(e.nstar_sum)}
        for e in entries
    ]
