"""The `TaskCell` protocol every family implements, and `Examples`, a cell's split as arrays.

A *family* is one Hub dataset (``modadd``, ``permutation``, ``retrieval``, ``copy``, ``lorem``,
``git``); a *cell* is one config of it (``acot_L10_uniform``, ``NRLast_L10_V16``), a frozen
`TaskCell`. The family's cell class owns everything that is specific to it: its name grammar,
vocabulary and special tokens, the exact pool of distinct items per length, a generator of
those items, the token layout of a row, the semantic columns and the metrics. Everything shared
lives here (lengths in play, the κ cells) and in ``sampling`` (the train / validation / test
splits, drawn without replacement from per-length streams, and `sampling.generate`). Adding a
family is one module with a `TaskCell` subclass and one line in ``registry.FAMILIES``.

Every family's cell names follow one grammar, `NameGrammar`: ``{kind}_L{L}[_{dist}][_{x}{n}]``,
the family filling in its kinds, its length laws and its parameter's letter and default. A cell
reads and writes its name through it, so no family writes a parser of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from ..citations import Paper
from .token_layout import Vocab

SCALAR, SEQUENCE = "scalar", "sequence"
# The length laws the sampler knows: every row at L, uniform over lengths, short to long.
DISTS = ("fixed", "uniform", "s2l")
# A family whose pools are too large to be used up has no s2l law (it needs whole pools).
DISTS_WITHOUT_S2L = ("fixed", "uniform")
# Every family's names: the kind (letters, digits, underscores: cherry_pick), L, then an optional
# law and an optional parameter (one letter and its integer). Signs are read so that a bad L or
# parameter is named as such, not as an unreadable name.
_NAME = re.compile(r"(?P<kind>[A-Za-z0-9_]+?)_L(?P<L>-?[0-9]+)(?:_(?P<dist>[a-z0-9]+))??"
                   r"(?:_(?P<part>(?P<letter>[A-Za-z])(?P<param>-?[0-9]+)))?")
# A family whose parameter is a name (the group family's A4xZ5) ends every name with it: it
# starts with a capital, which no length law does.
_NAMED = re.compile(r"(?P<kind>[A-Za-z0-9_]+?)_L(?P<L>-?[0-9]+)(?:_(?P<dist>[a-z0-9]+))??"
                    r"_(?P<part>[A-Z][A-Za-z0-9]*)")


@dataclass(frozen=True)
class NameGrammar:
    """One dataset's config names, ``{kind}_L{L}[_{dist}][_{letter}{param}]``, e.g.
    ``acot_L20_uniform_m10``, and its description for error messages and dataset cards.

    ``kind`` is the cell field the first part sets ("format" of a word problem, "task" of the
    other families); ``letter`` and ``default`` are the family parameter's (no letter: the
    family has none), ``symbol`` how the grammar writes its value and ``param_name`` what it
    is; ``dists[0]``, the default law, and the default parameter are left out of a canonical
    name. ``rules`` and ``param_rule`` state the bounds in words. With ``named_param`` the
    parameter is a name that every cell name ends with (``acot_L5_A4xZ5``), read as text and
    checked by the family."""

    dataset: str
    kind: str
    kinds: tuple[str, ...]
    dists: tuple[str, ...]
    rules: str
    examples: tuple[str, ...]
    letter: str = ""
    symbol: str = ""
    default: int | None = None
    param_name: str = ""
    param_rule: str = ""
    dist_note: str = ""
    named_param: bool = False

    @property
    def pattern(self) -> str:
        """``'{task}_L{L}[_{dist}][_V{V}]'``; a family of one kind writes it out (``copy_L{L}``)."""
        head = self.kinds[0] if len(self.kinds) == 1 else f"{{{self.kind}}}"
        tail = (f"_{{{self.symbol}}}" if self.named_param
                else f"[_{self.letter}{{{self.symbol}}}]" if self.letter else "")
        return f"{head}_L{{L}}[_{{dist}}]{tail}"

    @property
    def text(self) -> str:
        """The grammar in one line, shown with every error a name can have."""
        parts = [f"{self.kind} in {{{', '.join(self.kinds)}}}"] if len(self.kinds) > 1 else []
        note = f"; {self.dist_note}" if self.dist_note else ""
        parts.append(f"dist in {{{', '.join(self.dists)}}} (default {self.dists[0]}{note})")
        parts.append(self.rules)
        if self.named_param:
            parts.append(self.param_name)
        elif self.letter:
            parts.append(f"{self.param_name} (default {self.default})")
        if self.param_rule:
            parts.append(self.param_rule)
        return (f"{self.dataset} config names follow '{self.pattern}' with {', '.join(parts)}; "
                f"examples: {', '.join(self.examples)}")

    def read(self, name: object) -> dict[str, object]:
        """The cell fields ``name`` sets (kind, max_len, dist and the parameter), or ValueError
        with the grammar. A name is ASCII: Python's int() and ``\\d`` read a full-width or
        Arabic-Indic digit as a digit, and such a name would be recorded under another
        spelling."""
        if not isinstance(name, str):
            raise ValueError(f"cannot parse config name {name!r}; {self.text}")
        odd = next((c for c in name if not c.isascii()), None)
        if odd is not None:
            raise ValueError(f"config name {name!r} has the non-ASCII character {odd!r} "
                             f"(U+{ord(odd):04X}); names are ASCII; {self.text}")
        match = (_NAMED if self.named_param else _NAME).fullmatch(name)
        if match is None:
            raise ValueError(f"cannot parse config name {name!r}; {self.text}")
        fields = {self.kind: match["kind"], "max_len": int(match["L"]),
                  "dist": match["dist"] or self.dists[0]}
        if self.named_param:
            return {**fields, "family_param": match["part"]}
        if match["part"] is not None and match["letter"] != self.letter:
            raise ValueError(f"config {name!r}: {match['part']!r} is {self._not_a_part()}; "
                             f"{self.text}")
        if self.letter:
            fields["family_param"] = (self.default if match["param"] is None
                                      else int(match["param"]))
        return fields

    def _not_a_part(self) -> str:
        dists = f"a dist in {{{', '.join(self.dists)}}}"
        if not self.letter:
            return f"not {dists}, and {self.dataset} names take no parameter part"
        return f"neither {dists} nor {self.dataset}'s parameter _{self.letter}{{{self.symbol}}}"

    def check(self, kind: object, dist: object) -> None:
        """ValueError with the grammar unless ``kind`` and ``dist`` are the dataset's."""
        if kind not in self.kinds:
            raise ValueError(f"unknown {self.dataset} {self.kind} {kind!r}; {self.text}")
        if dist not in self.dists:
            raise ValueError(f"unknown length distribution {dist!r}; {self.text}")

    def write(self, kind: str, max_len: int, dist: str, param: int | None = None) -> str:
        """The canonical name: the default law and parameter left out."""
        name = f"{kind}_L{max_len}"
        if dist != self.dists[0]:
            name += f"_{dist}"
        if self.named_param:
            name += f"_{param}"
        elif self.letter and param != self.default:
            name += f"_{self.letter}{param}"
        return name


@dataclass(frozen=True)
class Examples:
    """One split of one cell; row i is example i. Padded arrays plus per-row lengths.

    ``columns`` holds the family's semantic columns (``elements`` and ``states`` of a word
    problem, ``context``/``query``/``answer`` of retrieval, ``source``/``target`` of copy):
    a sequence column is ``[K, max_n]`` valid up to ``lengths``, a scalar column ``[K]``. They
    read as attributes too (``ex.elements``).
    """

    lengths: np.ndarray  # [K] n
    input_ids: np.ndarray  # [K, T] padded with PAD
    labels: np.ndarray  # [K, T] causal-LM labels (the model shifts), -100 where unsupervised
    token_lengths: np.ndarray  # [K] unpadded length of input_ids / labels
    columns: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.lengths)

    def __getattr__(self, name: str) -> np.ndarray:
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]
        raise AttributeError(name)


class TaskCell:
    """One cell of a family: what every room asks of a cell, whatever the family.

    Subclasses are frozen dataclasses with at least the fields ``dataset``, ``max_len``,
    ``dist``, the kind their grammar names (``format`` or ``task``) and ``family_param`` where
    the family has a parameter, and implement the methods below that raise NotImplementedError.
    """

    dataset: str
    max_len: int
    dist: str
    # The family parameter, what the name's last part sets: m of Z_m, k of S_k, V symbols or
    # words (an integer), the group's name of the group family (a string); a field of every
    # family that has one (git's is fixed).
    family_param: int | str
    # The family's semantic columns, name -> SCALAR (one value per row) or SEQUENCE (n values).
    COLUMNS: ClassVar[dict[str, str]] = {}
    # The name grammar of each dataset the class serves (modadd and permutation share one).
    GRAMMARS: ClassVar[tuple[NameGrammar, ...]] = ()
    # The paper that defines the family (its card and builder cite it).
    PAPER: ClassVar[Paper]
    # The Hub tags of the family's dataset card, and the task category its checkpoints' model
    # cards name ("State tracking").
    TAGS: ClassVar[tuple[str, ...]] = ("synthetic",)
    TASK_NAME: ClassVar[str] = ""
    # Whether the word problems' out-of-distribution check (length 2L, accuracy normalised by
    # chance 1/|G|) applies; every family has the length-generalisation check.
    OOD_CHECK: ClassVar[bool] = False
    # How each test split's lengths relate to L, for cards: {"test": "length 2L"}.
    TEST_SPLIT_LABELS: ClassVar[dict[str, str]] = {}
    # The longest length of any split is LENGTH_SPAN x L (test at 2L; test_long up to 3L): the
    # rows the bounds of `limits` are checked on, without listing the lengths.
    LENGTH_SPAN: ClassVar[int] = 1

    # -- the name grammar --------------------------------------------------------------
    @classmethod
    def grammar_of(cls, dataset: str) -> NameGrammar:
        """The grammar of ``dataset``'s names, or ValueError if the class does not serve it."""
        for grammar in cls.GRAMMARS:
            if grammar.dataset == dataset:
                return grammar
        allowed = ", ".join(g.dataset for g in cls.GRAMMARS)
        raise ValueError(f"unknown dataset {dataset!r} for a {cls.__name__}; allowed: {allowed}")

    @property
    def grammar(self) -> NameGrammar:
        return self.grammar_of(self.dataset)

    @classmethod
    def parse(cls, dataset: str, name: str) -> TaskCell:
        """The cell ``name`` of ``dataset`` (e.g. ("modadd", "acot_L20")); ValueError naming the
        bad part and showing the grammar."""
        return cls(dataset=dataset, **cls.grammar_of(dataset).read(name))

    def __str__(self) -> str:
        """The canonical name: ``parse(dataset, str(cell)) == cell``."""
        return self.grammar.write(self.kind, self.max_len, self.dist, self.family_param)

    @property
    def name(self) -> str:
        return str(self)

    # -- lengths ----------------------------------------------------------------------
    @property
    def min_length(self) -> int:
        """The shortest length the family's items exist at, under a uniform or s2l law."""
        return 2

    @property
    def lengths(self) -> tuple[int, ...]:
        """The sequence lengths n in play: (L,) for fixed, min_length..L otherwise."""
        if self.dist == "fixed":
            return (self.max_len,)
        return tuple(range(self.min_length, self.max_len + 1))

    def with_length(self, n: int) -> TaskCell:
        """The fixed-length-n cell of the same family and variant (one term of κ's sum)."""
        return replace(self, max_len=n, dist="fixed")

    def joint(self) -> TaskCell:
        """The uniform cell over every length up to L (κ's denominator)."""
        return replace(self, dist="uniform")

    @property
    def test_splits(self) -> dict[str, tuple[int, ...]]:
        """Out-of-distribution splits: name -> the lengths they hold."""
        raise NotImplementedError

    @property
    def splits(self) -> tuple[str, ...]:
        return ("train", "validation", *self.test_splits)

    def split_label(self, split: str) -> str:
        return self.TEST_SPLIT_LABELS.get(split, "")

    # -- vocabulary and pools ------------------------------------------------------------
    @property
    def vocab(self) -> Vocab:
        raise NotImplementedError

    def symbol_names(self) -> list[str]:
        """One printable token string per symbol id, for the tokenizer."""
        raise NotImplementedError

    def pool_size(self, n: int) -> int:
        """The exact number of distinct items of length n (a Python int)."""
        raise NotImplementedError

    def stream_key(self, n: int) -> list[int]:
        """Integers naming the pool of length n, for the random streams' seeds."""
        raise NotImplementedError

    def item_width(self, n: int) -> int:
        """Integers per item of length n (the items' row width in ``stream``)."""
        return n

    def stream(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        """The first ``count`` items of one random order of the pool of length n:
        ``[count, item_width(n)]`` int rows, all distinct. Only ``rng`` is random, and
        asking for more never changes the earlier rows (prefix-stable)."""
        raise NotImplementedError

    # -- rows ------------------------------------------------------------------------
    def encode(self, items: np.ndarray, lengths: np.ndarray) -> Examples:
        """Rows of items ``[K, width]`` (valid up to ``item_width(lengths[k])``)."""
        raise NotImplementedError

    def metrics(self, predictions, labels) -> dict[str, float]:
        """What "correct" means for the family: the model's ids or logits on ``input_ids``
        against the rows' labels (the functions shift them)."""
        raise NotImplementedError

    def facts(self) -> dict[str, object]:
        """Computed facts of the cell's variant that every results row carries as columns
        (`results.rows.CellRow`): a group's order, solvability, ... (`group_facts`); none for
        a family without them."""
        return {}

    def describe(self) -> dict[str, str]:
        """Short facts for cards and tables, e.g. {"group": "Z5"} or {"symbols": "16"}."""
        raise NotImplementedError

    @classmethod
    def layout_table(cls) -> str:
        """A markdown table of the family's rows, drawn from its own encoder, for the cards."""
        raise NotImplementedError

    @property
    def variant(self) -> str:
        """The family parameter as one short label, e.g. "Z_5", "S_5", "V16"."""
        raise NotImplementedError

    @property
    def kind(self) -> str:
        """The name's first part: the supervision format of a word problem (acot), the task of
        the other families (NRLast, revert); the grammar names the field that holds it."""
        return getattr(self, self.grammar.kind)

    @property
    def alphabet_size(self) -> int:
        """How many symbols the items are made of (|G|, V): the x-axis of "N* against size"."""
        return self.vocab.order

    def token_length(self, n: int) -> int:
        """Tokens of an example of length n (``input_ids``)."""
        raise NotImplementedError

    def answer_tokens(self, n: int) -> int:
        """Symbol targets of an example of length n: what its exact match asks to be right."""
        return n

    def metric_chance(self, metric: str) -> float | None:
        """What uniform guessing scores on a metric of the family's own (one `chance` does not
        know), None if it depends on the rows."""
        return None

    def draw_cost(self, n: int) -> int:
        """Big-integer products one draw at length n takes before its rows (0 for a family
        whose draws are arrays only): what `limits.MAX_DRAW_COST` bounds."""
        return 0

    def family_name(self) -> str:
        """The cell without its length law and variant, e.g. "acot_L10_uniform" -> the series
        that N* against the alphabet size draws."""
        return f"{self.kind}_L{self.max_len}" + ("" if self.dist == "fixed" else f"_{self.dist}")


class LongerSplitsCell(TaskCell):
    """A family tested on the two spans past L, as Zhou et al.'s length generalisation is:
    ``test`` holds lengths L+1..2L and ``test_long`` 2L+1..3L (symbols, lorem, git)."""

    TEST_SPLIT_LABELS: ClassVar[dict[str, str]] = {"test": "lengths L+1..2L",
                                                   "test_long": "lengths 2L+1..3L"}
    LENGTH_SPAN: ClassVar[int] = 3

    @property
    def test_splits(self) -> dict[str, tuple[int, ...]]:
        L = self.max_len
        return {"test": tuple(range(L + 1, 2 * L + 1)),
                "test_long": tuple(range(2 * L + 1, 3 * L + 1))}

    def check_kind_and_length(self, what: str) -> None:
        """ValueError, one line with the grammar, for a kind or length law the grammar does not
        allow or an L below the shortest item; ``what`` names the item ("a history")."""
        grammar = self.grammar
        grammar.check(self.kind, self.dist)
        if not isinstance(self.max_len, int) or self.max_len < self.min_length:
            raise ValueError(f"bad length L={self.max_len!r}: {what} needs "
                             f"L >= {self.min_length}; {grammar.text}")


def vocab_of(cell: TaskCell) -> Vocab:
    return cell.vocab
