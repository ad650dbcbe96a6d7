"""``--test-lengths``: the lengths a length-generalisation check scores, chosen for every
cell of a campaign at once. Loads without torch, so that the command line checks it first."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..tasks import TaskCell

# A bound: a number, or kL with an optional signed constant (L+1, 2L, 3L-1).
_BOUND = re.compile(r"^(?:(?P<k>\d*)L(?P<c>[+-]\d+)?|(?P<n>\d+))$")


@dataclass(frozen=True)
class LengthRange:
    """``--test-lengths FROM..TO``: the check scores one test split of lengths FROM..TO in
    place of the cell's own test splits. Each bound is a number or a multiple of L plus or
    minus a number (``L+1..2L``, for L = 100 the second study's fine-tuning split 101..200), so one
    flag serves every cell of a sweep and every family (a word problem's own test split is 2L
    only). The lengths must lie past the training lengths and within the cell's longest split
    (L < FROM <= TO <= `TaskCell.LENGTH_SPAN` x L), where its bounds are checked."""

    text: str

    def __post_init__(self) -> None:
        parts = self.text.split("..")
        if len(parts) > 2 or not all(p and _BOUND.match(p.replace(" ", "")) for p in parts):
            raise ValueError(f"--test-lengths {self.text!r}: expected FROM..TO (or one length), "
                             "each a number or kL+c, e.g. 101..200 or L+1..2L")

    def lengths(self, cell: TaskCell) -> tuple[int, ...]:
        """The lengths at ``cell``'s L; ValueError, one line, outside (L, LENGTH_SPAN x L]."""
        L = cell.max_len

        def value(part: str) -> int:
            match = _BOUND.match(part.replace(" ", ""))
            if match["n"] is not None:
                return int(match["n"])
            return int(match["k"] or 1) * L + int(match["c"] or 0)

        bounds = [value(p) for p in self.text.split("..")]
        first, last = bounds[0], bounds[-1]
        top = cell.LENGTH_SPAN * L
        if not L < first <= last <= top:
            raise ValueError(f"--test-lengths {self.text}: {cell.dataset}/{cell} gives "
                             f"{first}..{last}; the lengths must lie in {L + 1}..{top} (past "
                             f"the training lengths, within its longest split {top})")
        return tuple(range(first, last + 1))


def span(lengths) -> str:
    """``"101..200"``, or ``"150"`` for one length: how rows and keys write lengths."""
    lengths = list(lengths)
    return f"{lengths[0]}..{lengths[-1]}" if len(lengths) > 1 else str(lengths[0])


def chosen_lengths(cell: TaskCell, test_lengths: LengthRange | None) -> dict[str, str]:
    """What a length-generalisation row's key adds for ``test_lengths`` (nothing without)."""
    return {} if test_lengths is None else {"test_lengths": span(test_lengths.lengths(cell))}
