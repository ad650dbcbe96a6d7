"""What ships as lm-evaluation-harness tasks, and the functions their YAML files name.

`FAMILIES` is the one list: per dataset, its configs and its `prompts.Prompt`;
``python -m hf_induction.lm_eval_tasks`` writes the YAML files from it. lm-eval calls
``!function utils.NAME`` with a row only, so every cell gets its own pair of functions,
``<task>_text`` and ``<task>_target``, made below from its prompt.
"""

# No ``from __future__ import annotations``: the harness runs this file before it registers it
# as a module, and a dataclass cannot resolve string annotations of an unregistered module.
from collections.abc import Callable
from dataclasses import dataclass, replace

from hf_induction.lm_eval_tasks.prompts import (
    BARE,
    COPY,
    GIT,
    LOREM,
    RETRIEVAL,
    WORD_PROBLEM,
    Prompt,
)
from hf_induction.tasks import SPECIAL_TOKENS, registry
from hf_induction.tasks.copying import TASKS as COPY_TASKS
from hf_induction.tasks.limits import MAX_VOCAB
from hf_induction.tasks.retrieval import TASKS as RETRIEVAL_TASKS

GROUP = "induction_bias"
# The study's in-context lengths (10 to 50).
LENGTHS: tuple[int, ...] = (10, 20, 30, 40, 50)


@dataclass(frozen=True)
class Family:
    """One dataset in the harness and its prompt: ``tasks`` at each of ``lengths``
    (``{task}_L{L}``, grouped by length), or, without lengths, ``tasks`` as whole config
    names."""

    dataset: str
    tasks: tuple[str, ...]
    prompt: Prompt
    lengths: tuple[int, ...] = ()
    # The family parameter of each config (the group family's groups); None: the default.
    params: tuple = (None,)

    @property
    def configs(self) -> tuple[str, ...]:
        """The config names, as the family's grammar writes them."""
        if not self.lengths:
            return self.tasks
        grammar = registry.family(self.dataset).grammar_of(self.dataset)
        return tuple(grammar.write(task, n, grammar.dists[0], grammar.default if p is None else p)
                     for p in self.params for task in self.tasks for n in self.lengths)


# The group family's groups shipped: beside S_5 (permutation's), the smaller non-abelian ones
# (A_4, S_4, D_6, Q8), the simple A_5 and a product with a cyclic factor (A_4xZ_5).
GROUPS: tuple[str, ...] = ("A4", "S4", "A5", "D6", "Q8", "A4xZ5", "S5")

# What ships: the paper's state tracking at L = 10 (three formats on Z_5, two on S_5, and the
# same two on each of `GROUPS`); the second study's ten retrieval and copy
# tasks at its in-context lengths, and its natural scenarios at its sizes (a lorem paragraph of
# 500 tokens; git histories of 20, 25 and 30 commits).
FAMILIES: tuple[Family, ...] = (
    Family("modadd", ("outcome", "cot", "acot"), WORD_PROBLEM, (10,)),
    Family("permutation", ("outcome", "cot"), WORD_PROBLEM, (10,)),
    Family("group", ("outcome", "cot"), WORD_PROBLEM, (10,), params=GROUPS),
    Family("retrieval", RETRIEVAL_TASKS, RETRIEVAL, LENGTHS),
    Family("copy", COPY_TASKS, COPY, LENGTHS),
    Family("lorem", ("copy_L500",), LOREM),
    Family("git", tuple(f"{t}_L{n}" for t in ("revert", "cherry_pick") for n in (20, 25, 30)),
           GIT),
)
PROMPTS: dict[str, Prompt] = {f.dataset: f.prompt for f in FAMILIES}


def in_context_cell(dataset: str, config: str):
    """The cell ``config`` of ``dataset``; where the family's default vocabulary is too small
    for it (copy's UF and UB hold 3L distinct symbols in their longest split), the same cell
    with the fewest symbols (``_V``) the family allows."""
    try:
        return registry.parse(dataset, config)
    except ValueError:
        # A symbol family's cell says how many symbols it needs: ask one with the most allowed.
        widest = registry.parse_or_none(dataset, f"{config}_V{MAX_VOCAB - len(SPECIAL_TOKENS)}")
        if widest is None or not hasattr(widest, "symbols_needed"):
            raise
        return replace(widest, family_param=widest.symbols_needed()[0])


# (dataset, config) of every cell shipped, the config as its cell names itself (UF_L20_V60).
TASKS: tuple[tuple[str, str], ...] = tuple(
    (f.dataset, str(in_context_cell(f.dataset, c))) for f in FAMILIES for c in f.configs)


def task_name(dataset: str, config: str, variant: str = BARE) -> str:
    """``induction_bias_{dataset}_{config}`` for the bare prompt, ``..._rule`` for the other."""
    return f"{GROUP}_{dataset}_{config}" + ("" if variant == BARE else f"_{variant}")


def prompt_functions(dataset: str, config: str) -> tuple[Callable, Callable]:
    """(doc -> prompt, doc -> target) of one cell."""
    return PROMPTS[dataset].functions(registry.parse(dataset, config))


for _dataset, _config in TASKS:
    _text, _target = prompt_functions(_dataset, _config)
    globals()[f"{task_name(_dataset, _config)}_text"] = _text
    globals()[f"{task_name(_dataset, _config)}_target"] = _target
