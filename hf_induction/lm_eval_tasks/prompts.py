"""How each family reads in context: its row as a prompt and a target, and the study's wording.

The second study evaluates pretrained language models in context: solved examples from the
train split, then a row of the validation split to complete, scored by exact match of the
greedy completion. The synthetic families read as the study's completion prompts
(lacoco-lab/always_a_transformer: ``retrieval/prompt_constants.py``,
``copying/prompt_completion.py``), the natural ones as its ``prompts/realistic`` templates, each
in two variants of one template: ``bare``, the solved examples alone, and ``rule``, the same
prompt after the study's text stating the task's rule (retrieval's ``simple_rule``, copy's
``obey``, lorem's ``echo``, git's instructions).

    retrieval   `` a b c | q: t``, 4 examples, a blank line between
    copy        ``<bos> a b c : a b c <eos>``, 5 examples, one a line
    lorem       ``Paragraph:\\n<start> ... <end>\\nEcho:\\n<start> ... <end>``, the study's two
                fixed examples, then the row's paragraph
    git         ``=== NEW HISTORY ===\\n<lines>\\n=== ANSWER ===\\n<start>\\n<lines>\\n<end>``,
                5 examples, a blank line between

A row's ids become the family's symbols (`TaskCell.symbol_names`, the names the dataset cards
use), separated by spaces; a lorem paragraph reads as prose, a git line as ``git log
--oneline`` prints it. The word problems keep their own prompt (``Elements: ... States:``),
which states no rule: their only variant is ``bare``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..tasks.git import ACTIONS, TOPICS

BARE, RULE = "bare", "rule"
VARIANTS: tuple[str, ...] = (BARE, RULE)


@dataclass(frozen=True)
class Prompt:
    """How one family reads in context.

    ``functions``: cell -> (doc -> prompt, doc -> target). ``shots``, ``target_delimiter``
    (between a prompt and its answer), ``fewshot_delimiter`` (after each solved example) and
    ``until`` (where a completion stops) are the harness's keys; ``answer_words``: cell ->
    symbols in its longest target (room to generate). ``rules``: (task, the text before the
    examples of its ``rule`` variant); a family without them has the ``bare`` variant only.
    """

    functions: Callable
    shots: int
    fewshot_delimiter: str
    until: tuple[str, ...]
    answer_words: Callable
    target_delimiter: str = " "
    rules: tuple[tuple[str, str], ...] = ()

    @property
    def variants(self) -> tuple[str, ...]:
        return VARIANTS if self.rules else (BARE,)

    def description(self, cell, variant: str) -> str:
        """What precedes the solved examples: nothing (bare) or the rule of ``cell``'s task."""
        if variant not in self.variants:
            raise ValueError(f"unknown prompt variant {variant!r} for {cell.dataset}; allowed: "
                             f"{', '.join(self.variants)}")
        return "" if variant == BARE else dict(self.rules)[cell.kind]


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


WORD_PROBLEM = Prompt(
    _word_problem, shots=3, fewshot_delimiter="\n\n", until=("\n",),
    answer_words=lambda cell: cell.max_len if cell.kind in ("cot", "acot") else 1)


def _retrieval(cell):
    names = cell.symbol_names()

    # The study's line: every symbol after a space, "|" before the query, ":" before the answer.
    def text(doc: dict) -> str:
        return f" {_words(names, doc['context'])} | {names[doc['query']]}:"

    def target(doc: dict) -> str:
        return names[doc["answer"]]

    return text, target


# The study's retrieval rule (its sentence also carries its source's indentation on the blank
# line, left out here).
_RETRIEVAL_RULE = ("Each line is written as ‘context|query: target’. The vertical bar ‘|’ "
                   "separates the context from the query token.\n\nAll strings below follow "
                   "this rule: {}\n\n")
_MANY = "When the query appears multiple times, the answer is the token just to the"
RETRIEVAL = Prompt(
    _retrieval, shots=4, fewshot_delimiter="\n\n", until=("\n",), answer_words=lambda cell: 1,
    rules=tuple((task, _RETRIEVAL_RULE.format(rule)) for task, rule in (
        ("UR", "The answer is the token immediately to the right of the single instance of "
               "the query token."),
        ("UL", "The answer is the token immediately to the left of the single instance of "
               "the query token."),
        ("NRFirst", f"{_MANY} right of its first appearance."),
        ("NRLast", f"{_MANY} right of its last appearance."),
        ("NLFirst", f"{_MANY} left of its first appearance."),
        ("NLLast", f"{_MANY} left of its last appearance."),
    )))


def _echo(spell: Callable, before: str, after: str) -> Callable:
    """The functions of a family whose answer is its source written again (copy, lorem): the
    prompt is the spelled source between ``before`` and ``after``, the target the spelled
    target; ``spell(names, ids)`` writes a row's ids as the family reads."""

    def functions(cell):
        names = cell.symbol_names()

        def text(doc: dict) -> str:
            return f"{before}{spell(names, doc['source'])}{after}"

        def target(doc: dict) -> str:
            return spell(names, doc["target"])

        return text, target

    return functions


_copy = _echo(_words, "<bos> ", " :")


_COPY_RULE = ("Here are some samples of the format <bos> input : output <eos> where the rule "
              "being followed is - {}\n\n")
_SAME = _COPY_RULE.format("The output is exactly the same sequence as the input.")
_REVERSED = _COPY_RULE.format("The output is the input sequence written in reverse order.")
# A solved copy ends in "<eos>" and a newline: the delimiter after it, so that the target is
# the copy alone and a completion stops where the study's did.
COPY = Prompt(
    _copy, shots=5, fewshot_delimiter=" <eos>\n", until=("\n\n", "<eos>"),
    answer_words=lambda cell: cell.max_len,
    rules=(("UF", _SAME), ("NF", _SAME), ("UB", _REVERSED), ("NB", _REVERSED)))


def _prose(names: list[str], ids) -> str:
    """A paragraph as the study's text reads: a period ends its sentence's last word, and the
    next sentence starts with a capital."""
    out, start = [], True
    for i in ids:
        word = names[int(i)]
        if word == ".":
            out[-1] += "."
        else:
            out.append(word.capitalize() if start else word)
        start = word == "."
    return " ".join(out)


# The study's two solved examples (its ``exact`` template): fixed, not rows.
_ECHOES = "".join(f"Paragraph:\n<start> {p} <end>\nEcho:\n<start> {p} <end>\n\n" for p in (
    "Once upon a time in a land far away.", "The quick brown fox jumps over the lazy dog."))


_lorem = _echo(_prose, f"{_ECHOES}Paragraph:\n<start> ", " <end>\nEcho:\n<start>")


LOREM = Prompt(
    _lorem, shots=0, fewshot_delimiter="\n\n", until=("<end>",),
    answer_words=lambda cell: cell.answer_tokens(cell.max_len),
    rules=(("copy", "# RULE : Paragraphs are repeated **exactly** as is, whenever an Echo is "
                    "seen.\n\n"),))


def _git(cell):
    def lines(doc: dict) -> dict[int, str]:
        """Each commit line by its hash, newest first."""
        return {h: f"{h:07x} {ACTIONS[a]} {TOPICS[t]}"
                for h, a, t in zip(doc["hash"], doc["action"], doc["topic"], strict=True)}

    def text(doc: dict) -> str:
        history = "\n".join(lines(doc).values())
        return f"=== NEW HISTORY ===\n{history}\n=== ANSWER ===\n<start>"

    def target(doc: dict) -> str:
        by_hash = lines(doc)
        return "\n".join(by_hash[h] for h in doc["target_hash"])

    return text, target


# The study's instructions (its markdown line breaks and non-breaking hyphens kept).
_GIT_HEAD = "Below is {}part of a Git commit history (newest at the top, oldest at the bottom).\n\n"
_GIT_TAIL = ("2. One complete commit line per output line.  \n3. Do **not** output anything "
             "else.\n\n")
GIT = Prompt(
    _git, shots=5, target_delimiter="\n", fewshot_delimiter="\n<end>\n\n", until=("<end>",),
    answer_words=lambda cell: cell.answer_tokens(cell.max_len),
    rules=(("revert", _GIT_HEAD.format("") + "Task  \nList every commit line that must be "
                      "reverted to roll the codebase back.\n1. Output the lines **from newest "
                      "to oldest**.\n" + _GIT_TAIL),
           ("cherry_pick", _GIT_HEAD.format("a ") + "Task  \nList every commit line that must "
                           "be cherry‑picked onto the release branch.  \n1. Output them **from "
                           "oldest to newest** (the order `git cherry‑pick` expects).  \n"
                           + _GIT_TAIL)))
