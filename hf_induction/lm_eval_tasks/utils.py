"""Prompts and targets of the lm-evaluation-harness tasks (the YAML files beside this module).

The second study evaluates pretrained language models in context: a few solved examples from
the train split, then a row of the validation split to complete. A row's ids become the
family's symbols (`TaskCell.symbol_names`, the names the dataset cards use), separated by
spaces; the target is what the family asks for: the final state (outcome) or every state
(cot, acot) of a word problem, the neighbour of the query in retrieval, the copied sequence
in copying. Scored by exact match of the greedy completion.

lm-eval calls ``!function utils.NAME`` with a row only, so every task gets its own pair of
functions, ``<task>_text`` and ``<task>_target``, made below from `TASKS`: the one list of
the cells shipped, which ``python -m hf_induction.lm_eval_tasks`` writes the YAML files from.
"""

from __future__ import annotations

from collections.abc import Callable

from hf_induction.tasks import registry

GROUP = "induction_bias"

# (dataset, config) of every shipped task: the paper's state tracking at L = 10 in the three
# formats, on Z_5 and S_5, and the second study's retrieval and copy tasks at L = 10.
TASKS: tuple[tuple[str, str], ...] = (
    ("modadd", "outcome_L10"), ("modadd", "cot_L10"), ("modadd", "acot_L10"),
    ("permutation", "outcome_L10"), ("permutation", "cot_L10"),
    ("retrieval", "UR_L10"), ("retrieval", "UL_L10"), ("retrieval", "NRFirst_L10"),
    ("retrieval", "NRLast_L10"),
    ("copy", "UF_L10"), ("copy", "UB_L10"), ("copy", "NF_L10"), ("copy", "NB_L10"),
)


def task_name(dataset: str, config: str) -> str:
    return f"{GROUP}_{dataset}_{config}"


def _words(names: list[str], ids) -> str:
    return " ".join(names[int(i)] for i in ids)


def _word_problem(cell):
    names = cell.symbol_names()

    def text(doc: dict) -> str:
        return f"Elements: {_words(names, doc['elements'])}\nStates:"

    def target(doc: dict) -> str:
        states = doc["states"][: doc["length"]]
        return _words(names, states[-1:] if cell.kind == "outcome" else states)

    return text, target


def _retrieval(cell):
    names = cell.symbol_names()

    def text(doc: dict) -> str:
        return f"Context: {_words(names, doc['context'])}\nQuery: {names[doc['query']]}\nAnswer:"

    def target(doc: dict) -> str:
        return names[doc["answer"]]

    return text, target


def _copy(cell):
    names = cell.symbol_names()

    def text(doc: dict) -> str:
        return f"Sequence: {_words(names, doc['source'])}\nCopy:"

    def target(doc: dict) -> str:
        return _words(names, doc["target"])

    return text, target


# How each family turns a row into a prompt and its target.
PROMPTS: dict[str, Callable] = {"modadd": _word_problem, "permutation": _word_problem,
                                "retrieval": _retrieval, "copy": _copy}


def prompt_functions(dataset: str, config: str) -> tuple[Callable, Callable]:
    """(doc -> prompt, doc -> target) of one cell."""
    return PROMPTS[dataset](registry.parse(dataset, config))


for _dataset, _config in TASKS:
    _text, _target = prompt_functions(_dataset, _config)
    globals()[f"{task_name(_dataset, _config)}_text"] = _text
    globals()[f"{task_name(_dataset, _config)}_target"] = _target
