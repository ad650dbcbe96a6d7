"""How far a check carries: the `ReachRow`s of one OOD check (a model on a cell at size N)
taken together, and the length they carry to."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from .rows import ReachRow
from .tables import latest

# The multiples of L a reach check scores: the OOD check's 2L, then as far as the field argues.
REACH_FACTORS = (2, 4, 10, 100, 1000)
# "Carries to": the longest length whose normalised final-state accuracy is at least this.
CARRIES = 0.9


@dataclass(frozen=True)
class Reach:
    """The reach rows of one check, by length."""

    dataset: str
    config: str
    model: str
    n: int
    rows: tuple[ReachRow, ...]

    def at(self, factor: int) -> ReachRow | None:
        """The row at ``factor`` times L, if scored or marked."""
        return next((r for r in self.rows if r.factor == factor), None)

    @property
    def carries_to(self) -> ReachRow | None:
        """The longest scored length whose normalised final-state accuracy is at least
        `CARRIES` (None: none is)."""
        return max((r for r in self.rows if r.scored and r.normalised_final_state_accuracy
                    is not None and r.normalised_final_state_accuracy >= CARRIES),
                   key=lambda r: r.length, default=None)


def reach_groups(rows: Iterable[ReachRow]) -> list[Reach]:
    """One `Reach` per check (dataset, config, model, N), the last row per key, sorted."""
    by_check: dict[tuple, list[ReachRow]] = defaultdict(list)
    for row in latest(rows):
        by_check[(row.dataset, row.config, row.model, row.n)].append(row)
    return [Reach(*check, tuple(sorted(rs, key=lambda r: r.length)))
            for check, rs in sorted(by_check.items())]
