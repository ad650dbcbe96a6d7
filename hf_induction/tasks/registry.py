"""The families: dataset name -> its cell class. One line per family.

Every room that meets a dataset name asks this registry for its cells (`parse`), so a new
family is one module (a `TaskCell` subclass with its `NameGrammar`) and one line here.
"""

from __future__ import annotations

from .cell import TaskCell
from .copying import CopyCell
from .git import GitCell
from .lorem import LoremCell
from .retrieval import RetrievalCell
from .word_problems import WordProblemCell

FAMILIES: dict[str, type[TaskCell]] = {
    "modadd": WordProblemCell,
    "permutation": WordProblemCell,
    "group": WordProblemCell,
    "retrieval": RetrievalCell,
    "copy": CopyCell,
    "lorem": LoremCell,
    "git": GitCell,
}
DATASETS: tuple[str, ...] = tuple(FAMILIES)
# Where the families are published: induction-bias/<dataset> on the Hub.
HUB_ORG = "induction-bias"


def family(dataset: str) -> type[TaskCell]:
    if dataset not in FAMILIES:
        raise ValueError(f"unknown dataset {dataset!r}; allowed: {', '.join(DATASETS)}")
    return FAMILIES[dataset]


def parse(dataset: str, name: str) -> TaskCell:
    """The cell ``name`` of ``dataset`` (e.g. ("modadd", "acot_L20")); ValueError naming the
    bad part and showing the family's grammar."""
    return family(dataset).parse(dataset, name)


def parse_or_none(dataset: str, name: str) -> TaskCell | None:
    """The cell, or None for a name this package does not know (a results row or a card of
    another version): for readers that show what they can instead of failing."""
    try:
        return parse(dataset, name)
    except ValueError:
        return None


def grammar(dataset: str) -> str:
    """The dataset's name grammar in one line, as its errors and dataset card show it."""
    return family(dataset).grammar_of(dataset).text


def hub_dataset_id(dataset: str) -> str:
    """The Hub id of a family's published dataset, e.g. "induction-bias/modadd"."""
    family(dataset)  # an unknown name is the registry's one-line error
    return f"{HUB_ORG}/{dataset}"
