"""Where a search starts: the N* of its nearest solved neighbour in the campaign's folder.

A campaign measures cells that lie close together, and a search need not climb from
``n_start`` to what the folder already shows: it starts from a hint (`search.refined`), which
under outcomes monotone in N reaches the cold search's bracket and N*. A hint only changes
which sizes are probed first, never a run or a result row, so it is not part of the protocol,
and a folder made cold resumes warm.

A neighbour is a finished search of the same dataset (solved, or its largest size failed),
read from cells alone (no task is named). The relations, in order; the first that holds for
some row gives the hint, from its nearest row:
1. the same model on the same cell at a shorter length (the previous length of a κ schedule;
   the fixed cell at L for the joint cell);
2. the same model on the same cell with a smaller integer family parameter (the next smaller
   m of Z_m, k of S_k, V);
3. the other models on the same cell (the median of their hints);
4. the same model on the same cell at a longer length (a κ schedule's lengths run side by
   side on several processes);
5. the same model on the same kind of cell with another family parameter, the nearest
   alphabet first (the other groups of a length).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ..results.rows import NstarRow
from ..tasks import TaskCell, parse_or_none


@dataclass(frozen=True)
class Hint:
    """Where a search starts, and what in the folder made it start there: ``n``, a size, or
    None where the neighbour learnt at no size it probed (the search then probes its own
    cap first)."""

    n: int | None
    why: str

    @classmethod
    def of(cls, row: NstarRow) -> Hint:
        """A neighbour's hint: its N*, or None where its largest size failed."""
        where = f"{row.model} on {row.config}"
        if row.n_star is not None:
            return cls(row.n_star, f"N* = {row.n_star:,} of {where}")
        return cls(None, f"N* > {row.largest_failing:,} of {where} (its largest size failed)")

    def size(self, pool_size: int) -> int:
        """The hint as the search takes it: a size, the pool's where no size learnt."""
        return pool_size if self.n is None else self.n

    def words(self) -> str:
        return f"warm start from {self.why}"


def _other_length(cell: TaskCell, other: TaskCell, shorter: bool) -> float | None:
    """How many lengths ``other``, a fixed cell of ``cell``'s, lies below (or above) it."""
    if other == cell or other.dist != "fixed" or (other.max_len > cell.max_len) == shorter:
        return None
    if replace(other, max_len=cell.max_len, dist=cell.dist) != cell:
        return None
    return abs(cell.max_len - other.max_len)


def _smaller_param(cell: TaskCell, other: TaskCell) -> float | None:
    mine, theirs = cell.family_param, other.family_param
    if not (isinstance(mine, int) and isinstance(theirs, int) and theirs < mine):
        return None
    return mine - theirs if replace(other, family_param=mine) == cell else None


def _other_param(cell: TaskCell, other: TaskCell) -> float | None:
    if other.family_param == cell.family_param:
        return None
    if replace(other, family_param=cell.family_param) != cell:
        return None
    return abs(math.log(other.alphabet_size / cell.alphabet_size))


# (relation, whether it asks for the same model): a distance where the relation holds.
Relation = Callable[[TaskCell, TaskCell], "float | None"]
RELATIONS: tuple[tuple[Relation, bool], ...] = (
    (lambda cell, other: _other_length(cell, other, shorter=True), True),
    (_smaller_param, True),
    (lambda cell, other: 0.0 if other == cell else None, False),
    (lambda cell, other: _other_length(cell, other, shorter=False), True),
    (_other_param, True),
)


def neighbour_hint(cell: TaskCell, model: str, rows: Iterable[NstarRow]) -> Hint | None:
    """The hint for ``model``'s search of ``cell`` from a folder's N* rows (None: no
    neighbour has finished)."""
    found = []
    for row in rows:
        if row.dataset != cell.dataset or (row.n_star is None and row.largest_failing is None):
            continue
        other = parse_or_none(row.dataset, row.config)
        if other is None:
            continue
        for rank, (relation, same_model) in enumerate(RELATIONS):
            if (row.model == model) == same_model and (d := relation(cell, other)) is not None:
                found.append((rank, d, row))
                break
    if not found:
        return None
    rank, distance, _ = min(found, key=lambda t: t[:2])
    nearest = [Hint.of(row) for r, d, row in found if (r, d) == (rank, distance)]
    if len(nearest) == 1:
        return nearest[0]
    # Several at one distance (the other models on the cell): the median of their hints,
    # a model that learnt at no size counting as the largest.
    nearest.sort(key=lambda h: math.inf if h.n is None else h.n)
    median = nearest[(len(nearest) - 1) // 2]
    return Hint(median.n, f"the median of {len(nearest)}, {median.why}")


__all__ = ["Hint", "neighbour_hint"]
