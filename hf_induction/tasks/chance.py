"""What uniform guessing scores on a cell's metrics: the chance level a length-generalisation
score is read against. A fact of the family, so it lives in ``tasks``; the tables print it."""

from __future__ import annotations

import math
from collections.abc import Mapping

from .cell import TaskCell
from .sampling import test_sizes, validation_sizes


def split_sizes(cell: TaskCell, split: str) -> dict[int, int]:
    """Examples per length of ``split`` as the length-generalisation check draws it (the whole
    validation set, a test split at its default size); {} for a split the cell has not."""
    if split == "validation":
        return validation_sizes(cell)
    return test_sizes(cell, split) if split in cell.test_splits else {}


def chance_level(cell: TaskCell, metric: str, sizes: Mapping[int, int]) -> float | None:
    """What uniform guessing scores on ``metric`` over ``sizes`` (examples per length): one
    symbol of the cell's alphabet in |alphabet| per answer, all of a length-n answer's
    `answer_tokens` for exact match, 0 for an accuracy normalised by chance; a metric of one
    family's own is the family's (`TaskCell.metric_chance`), None where nobody knows it."""
    per_symbol = 1.0 / cell.alphabet_size
    if metric.startswith("normalised_"):
        return 0.0
    if metric == "exact_match":
        total = sum(sizes.values())
        return math.fsum(k * per_symbol ** cell.answer_tokens(n)
                         for n, k in sizes.items()) / total if total else None
    if metric in ("accuracy", "token_accuracy", "state_accuracy", "final_state_accuracy"):
        return per_symbol
    return cell.metric_chance(metric)
