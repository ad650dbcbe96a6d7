"""The group word problems (modadd, permutation, group): their cells, their config names,
and everything the `TaskCell` protocol asks of a family.

Config names (the shared `cell.NameGrammar`, its parameter the group's)::

    modadd:       {format}_L{L}[_{dist}][_m{m}]     e.g. acot_L20, outcome_L20_m10
    permutation:  {format}_L{L}[_{dist}][_S{k}]     e.g. cot_L10_uniform, acot_L30_s2l_S4
    group:        {format}_L{L}[_{dist}]_{G}        e.g. acot_L10_A5, cot_L5_uniform_A4xZ5

format in {outcome, cot, acot}; dist in {fixed, uniform, s2l} (default fixed);
modadd's default group is Z_5, permutation's is S_5; the group family names its group
(``group_names``: Z{m}, S{k}, A{k}, D{n}, Q8, products, registered groups). ``str()`` gives
the canonical name (defaults left out), and ``parse(str(c)) == c``. ``group/..._Z5`` and
``group/..._S5`` rows are modadd's and permutation's, row for row.

A word g_1..g_n is one row, in the shared token layout (``token_layout``) and one of three
formats::

    acot:     input_ids = [BOS, g_1..g_n, EOS]               labels = [-100 x 2, s_1..s_n]
    outcome:  input_ids = [BOS, g_1..g_n, SEP, s_n]          labels = [-100 x (n+2), s_n]
    cot:      input_ids = [BOS, g_1..g_n, SEP, s_1..s_n, EOS] labels = [-100 x (n+2), s_1..s_n, EOS]

acot's trailing EOS only lines the shift up (the output after g_i is s_i; the states are
never fed back as inputs). For outcome and cot the supervised tokens are the input's own
continuation, as in any prompt + completion row: ``labels`` is ``input_ids`` with the
prompt [BOS, g_1..g_n, SEP] masked, and ``generate()`` from the prompt writes the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..citations import INDUCTION_BIAS, Paper
from .cell import DISTS, SEQUENCE, Examples, NameGrammar, TaskCell
from .group_names import GROUP_NAMES, named
from .groups import MAX_SYMMETRIC_DEGREE, CyclicGroup, Group, cyclic, symmetric
from .limits import MAX_GROUP_ORDER, MAX_TOKENS, MAX_VOCAB, check_length, check_vocab
from .sampling import PERMUTATION_POOL_LIMIT, WORDS, distinct_draws
from .token_layout import IGNORE, Vocab

FORMATS = ("outcome", "cot", "acot")
_EXAMPLES = ("acot_L20", "cot_L10_uniform")
_LENGTH_RULE = (f"L >= 1 (>= 2 for uniform and s2l) while a row at the test length 2L has at "
                f"most {MAX_TOKENS} tokens")
GRAMMARS = (
    NameGrammar("modadd", "format", FORMATS, DISTS, _LENGTH_RULE,
                (*_EXAMPLES, "outcome_L20_m10"), letter="m", symbol="m", default=5,
                param_name="the modulus m", param_rule=f"2 <= m <= {MAX_VOCAB - 4}"),
    NameGrammar("permutation", "format", FORMATS, DISTS, _LENGTH_RULE,
                (*_EXAMPLES, "acot_L30_s2l_S4"), letter="S", symbol="k", default=5,
                param_name="the degree k", param_rule=f"2 <= k <= {MAX_SYMMETRIC_DEGREE}"),
    NameGrammar("group", "format", FORMATS, DISTS, _LENGTH_RULE,
                ("acot_L10_A5", "cot_L10_uniform_D6", "acot_L5_A4xZ5"), symbol="G",
                param_name=f"G a group: {GROUP_NAMES}", named_param=True),
)


@dataclass(frozen=True)
class WordProblemCell(TaskCell):
    """One cell of a group word problem: dataset, supervision format, length law and group
    parameter (m of Z_m, k of S_k, the group family's group name; None: the dataset's
    default)."""

    COLUMNS: ClassVar[dict[str, str]] = {"elements": SEQUENCE, "states": SEQUENCE}
    GRAMMARS: ClassVar[tuple[NameGrammar, ...]] = GRAMMARS
    PAPER: ClassVar[Paper] = INDUCTION_BIAS
    TASK_NAME: ClassVar[str] = "State tracking"
    TAGS: ClassVar[tuple[str, ...]] = ("state-tracking", "group-word-problem", "synthetic",
                                       "induction-bias")
    TEST_SPLIT_LABELS: ClassVar[dict[str, str]] = {"test": "length 2L"}
    OOD_CHECK: ClassVar[bool] = True
    LENGTH_SPAN: ClassVar[int] = 2

    dataset: str
    format: str
    max_len: int
    dist: str = "fixed"
    family_param: int | str | None = None

    def __post_init__(self):
        grammar = self.grammar
        if self.family_param is None:
            object.__setattr__(self, "family_param", grammar.default)
        grammar.check(self.kind, self.dist)
        min_len = 1 if self.dist == "fixed" else 2
        if not isinstance(self.max_len, int) or self.max_len < min_len:
            raise ValueError(f"bad length L={self.max_len!r}: {self.dist} needs L >= {min_len}; "
                             f"{grammar.text}")
        check_length(self)
        p = self.family_param
        if self.dataset == "modadd" and (not isinstance(p, int) or p < 2):
            raise ValueError(f"bad modulus m={p!r}: Z_m needs m >= 2; {grammar.text}")
        if self.dataset == "permutation" and (
            not isinstance(p, int) or not 2 <= p <= MAX_SYMMETRIC_DEGREE
        ):
            raise ValueError(f"bad degree k={p!r}: S_k needs 2 <= k <= {MAX_SYMMETRIC_DEGREE}; "
                             f"{grammar.text}")
        if self.dataset == "group":
            try:
                named(p)
            except ValueError as e:
                raise ValueError(f"config {self}: {e}") from None
        check_vocab(self)

    @property
    def group(self) -> Group:
        if self.dataset == "modadd":
            return cyclic(self.family_param)
        if self.dataset == "permutation":
            return symmetric(self.family_param)
        return named(self.family_param)

    def facts(self) -> dict[str, object]:
        """The group's facts as row columns (`group_facts`); none for a group whose
        multiplication table the bound refuses (modadd's largest moduli)."""
        from .group_facts import facts

        group = self.group
        return facts(group).columns() if group.order <= MAX_GROUP_ORDER else {}

    @property
    def test_length(self) -> int:
        """Out-of-distribution length: twice the maximum training length."""
        return self.LENGTH_SPAN * self.max_len

    @property
    def test_splits(self) -> dict[str, tuple[int, ...]]:
        return {"test": (self.test_length,)}

    @property
    def vocab(self) -> Vocab:
        return Vocab(self.group.order)

    def symbol_names(self) -> list[str]:
        return self.group.element_names()

    def pool_size(self, n: int) -> int:
        return self.group.order**n

    def stream_key(self, n: int) -> list[int]:
        return group_stream_key(self.group, n)

    def stream(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        return group_words(self.group, n, count, rng)

    def encode(self, items: np.ndarray, lengths: np.ndarray) -> Examples:
        states = self.group.scan(items)
        ids, labels = encode(self.format, items, states, lengths, self.vocab)
        return Examples(lengths, ids, labels, sequence_length(self.format, lengths),
                        {"elements": items, "states": states})

    def metrics(self, predictions, labels) -> dict[str, float]:
        from ..metrics import state_tracking_metrics

        return state_tracking_metrics(predictions, labels, self.group.order)

    def describe(self) -> dict[str, str]:
        """The group and its facts, for the dataset card's table of configs."""
        facts = self.facts()
        shown = {"order": "group_order", "solvable": "solvable",
                 "word problem": "word_problem"} if facts else {}
        return {"group": self.group.name, "format": self.format,
                **{label: str(facts[key]) for label, key in shown.items()}}

    @classmethod
    def layout_table(cls) -> str:
        return layout_table()

    @property
    def variant(self) -> str:
        return self.group.label

    def token_length(self, n: int) -> int:
        return sequence_length(self.format, n)


def pool_size(group: Group, n: int) -> int:
    """Number of distinct words of length n over a group: |G|^n (exact Python int)."""
    return group.order**n


def group_stream_key(group: Group, n: int) -> list[int]:
    return [0 if isinstance(group, CyclicGroup) else 1, group.order, n]


def _decode(codes: np.ndarray, order: int, n: int, dtype) -> np.ndarray:
    """Base-|G| digits of word codes, most significant first: [K] -> [K, n]."""
    words = np.empty((len(codes), n), dtype=dtype)
    rest = codes.astype(np.int64)
    for j in range(n - 1, -1, -1):
        words[:, j] = rest % order
        rest //= order
    return words


def group_words(group: Group, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """The first ``count`` words of a random order of all |G|^n words: [count, n] ids."""
    pool = pool_size(group, n)
    dtype = group.id_dtype
    if pool <= PERMUTATION_POOL_LIMIT:
        return _decode(rng.permutation(pool)[:count], group.order, n, dtype)
    return distinct_draws(
        lambda r, size: r.integers(0, group.order, size=(size, n), dtype=dtype), count, rng)


def unique_words(group: Group, n: int, count: int, seed: int, purpose: int = WORDS):
    """A group's word stream (the words of every modadd/permutation cell over ``group``)."""
    if count > pool_size(group, n):
        raise ValueError(
            f"asked for {count} distinct words of length {n} over {group.name}, "
            f"but only {pool_size(group, n)} exist"
        )
    rng = np.random.default_rng([int(seed), purpose, *group_stream_key(group, n)])
    return group_words(group, n, count, rng)


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")


def sequence_length(fmt: str, n: np.ndarray | int):
    """Token length of an example with n group elements."""
    _check_format(fmt)
    return {"acot": n + 2, "outcome": n + 3, "cot": 2 * n + 3}[fmt]


def prompt_length(fmt: str, n: np.ndarray | int):
    """Tokens of the prompt [BOS, g_1..g_n, SEP] of an outcome or cot example: ``generate()``
    continues it with the example's targets. acot has none (its targets are not in the input)."""
    _check_format(fmt)
    if fmt == "acot":
        raise ValueError("acot has no prompt to generate from: its states are never inputs")
    return n + 2


def _encode_block(fmt: str, g: np.ndarray, s: np.ndarray, vocab: Vocab,
                  ids: np.ndarray, labels: np.ndarray) -> None:
    """Write the input_ids and labels of words that all have the same length n ([K, n])
    into ``ids`` and ``labels`` ([K, >= T], pre-filled with PAD and -100)."""
    n = g.shape[1]
    ids[:, 0] = vocab.bos
    ids[:, 1 : n + 1] = g
    if fmt == "acot":
        ids[:, n + 1] = vocab.eos
        labels[:, 2 : n + 2] = s
    elif fmt == "outcome":
        ids[:, n + 1] = vocab.sep
        ids[:, n + 2] = labels[:, n + 2] = s[:, -1]
    elif fmt == "cot":
        ids[:, n + 1] = vocab.sep
        ids[:, n + 2 : 2 * n + 2] = labels[:, n + 2 : 2 * n + 2] = s
        ids[:, 2 * n + 2] = labels[:, 2 * n + 2] = vocab.eos
    else:
        _check_format(fmt)


def encode(fmt: str, elements: np.ndarray, states: np.ndarray, lengths: np.ndarray,
           vocab: Vocab) -> tuple[np.ndarray, np.ndarray]:
    """Padded ``input_ids`` and causal-LM ``labels`` ([K, T], int64) for a batch of words.

    ``elements`` and ``states`` are [K, max_n], valid up to each row's length. Rows are
    encoded in blocks of equal length (at most L blocks), so there is no loop per example.
    Padding is PAD in ``input_ids`` and -100 in ``labels``.
    """
    _check_format(fmt)
    k = len(lengths)
    t_max = int(sequence_length(fmt, lengths).max(initial=0))
    ids = np.full((k, t_max), vocab.pad, dtype=np.int64)
    labels = np.full((k, t_max), IGNORE, dtype=np.int64)
    distinct = np.unique(lengths).tolist()
    if len(distinct) == 1:
        # One length (every fixed-length cell): straight into the outputs, no gathered copy.
        n = distinct[0]
        _encode_block(fmt, elements[:, :n], states[:, :n], vocab, ids, labels)
        return ids, labels
    for n in distinct:
        rows = np.flatnonzero(lengths == n)
        t = int(sequence_length(fmt, n))
        block_ids = np.full((len(rows), t), vocab.pad, dtype=np.int64)
        block_labels = np.full((len(rows), t), IGNORE, dtype=np.int64)
        _encode_block(fmt, elements[rows, :n], states[rows, :n], vocab, block_ids, block_labels)
        ids[rows, :t], labels[rows, :t] = block_ids, block_labels
    return ids, labels


def layout_table(n: int = 3) -> str:
    """The token layout of each format as a markdown table, drawn from `encode` itself on a
    word of ``n`` symbolic elements (the dataset cards show this, so they cannot drift)."""
    vocab = Vocab(2 * n)  # ids 0..n-1 stand for g_1..g_n and n..2n-1 for s_1..s_n
    names = {i: f"g{i + 1}" for i in range(n)} | {n + i: f"s{i + 1}" for i in range(n)}
    names |= {vocab.bos: "BOS", vocab.sep: "SEP", vocab.eos: "EOS", IGNORE: "-100"}
    elements = np.arange(n)[None, :]
    rows = ["| format | input_ids | labels |", "|---|---|---|"]
    for fmt in FORMATS:
        ids, labels = encode(fmt, elements, elements + n, np.array([n]), vocab)
        rows.append(f"| {fmt} | {' '.join(names[i] for i in ids[0])} | "
                    f"{' '.join(names[i] for i in labels[0])} |")
    return "\n".join(rows)
