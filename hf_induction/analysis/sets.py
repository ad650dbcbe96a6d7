"""The prompt configs a model is read on, each named as a results row names it.

A checkpoint trained on a cell is read on its family's unique-symbol tasks at the cell's own
L, V and length law (`PROMPT_TASKS`: copy UF and UB, where induction and anti-induction
heads do the copying; retrieval UR and UL), and on repeated random sequences over the cell's
symbols at length L (TransformerLens' induction prompts), config ``repeated_L{L}_V{V}`` of
the pseudo-dataset `REPEATED`. A family without a line is read on the repeated sequences
only. Prompts are drawn when a set is built (`PromptSet.build`), from the validation split.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..tasks.cell import NameGrammar, TaskCell
from .prompts import HeadPrompts, prompts_from_cell, repeated_random_prompts

# family -> the tasks a checkpoint of that family is read on.
PROMPT_TASKS: dict[str, tuple[str, ...]] = {"copy": ("UF", "UB"), "retrieval": ("UR", "UL")}
REPEATED = "repeated"
# The repeated sets' config names, ``repeated_L{L}_V{V}``, written by the grammar every cell
# name is: V always written (the set has no default alphabet).
REPEATED_GRAMMAR = NameGrammar(REPEATED, "task", (REPEATED,), ("fixed",), "L >= 1",
                               ("repeated_L10_V32",), letter="V", symbol="V",
                               param_name="V symbols")


@dataclass(frozen=True)
class PromptSet:
    """One prompt config: a task cell's validation rows, or (``dataset`` `REPEATED`) random
    sequences over ``cell``'s symbols repeated once, at its length L."""

    dataset: str
    config: str
    cell: TaskCell

    def build(self, n: int, seed: int) -> list[HeadPrompts]:
        """``n`` prompts (fewer where the split holds fewer rows), drawn with ``seed``."""
        if self.dataset == REPEATED:
            vocab = self.cell.vocab
            return [repeated_random_prompts(np.arange(vocab.order), self.cell.max_len, n, seed,
                                            vocab.bos)]
        return prompts_from_cell(self.cell, n, seed=seed)


def repeated_set(cell: TaskCell) -> PromptSet:
    """Repeated random sequences over ``cell``'s symbols, at its length L."""
    name = REPEATED_GRAMMAR.write(REPEATED, cell.max_len, "fixed", cell.vocab.order)
    return PromptSet(REPEATED, name, cell)


def cell_sets(cells: Sequence[TaskCell]) -> list[PromptSet]:
    """The named cells, then the repeated sequences of each (L, V) among them."""
    sets = [PromptSet(c.dataset, str(c), c) for c in dict.fromkeys(cells)]
    repeated: dict[str, PromptSet] = {}
    for c in cells:
        repeated.setdefault(repeated_set(c).config, repeated_set(c))
    return sets + list(repeated.values())


def checkpoint_sets(trained_on: TaskCell) -> tuple[list[PromptSet], list[str]]:
    """The prompt sets of a model trained on ``trained_on`` (module docstring), and one line
    for each of its family's tasks the cell's symbols cannot draw (left out): UF at V < 3L."""
    cells, left_out = [], []
    for task in PROMPT_TASKS.get(trained_on.dataset, ()):
        try:
            cells.append(dataclasses.replace(trained_on, task=task))
        except ValueError as e:
            left_out.append(f"{trained_on.dataset} {task}: {str(e).split(';')[0]}")
    return [PromptSet(c.dataset, str(c), c) for c in cells] + [repeated_set(trained_on)], left_out
