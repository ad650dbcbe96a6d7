"""Lorem ipsum: copy a pseudo-Latin paragraph whose sentences and words repeat.

The natural copying scenario of *Born a Transformer -- Always a Transformer?* (arXiv
2505.21785): a model copies a Lorem-ipsum paragraph of about 500 tokens in which sentences are
duplicated and words repeated, so that some tokens have several continuations in the text. The
study finds most errors right after such *ambiguous* tokens, as its NF copying task predicts.

Text. V words of a fixed pseudo-Latin list (`WORDS`, 200 words, one token each; the first 27
are those of the ``lorem`` package the study's paragraphs are made of) and the period. A
sentence is 4 to 8 words and a period (the study's sentences have 4 to 8 words); a paragraph of
length n is n tokens of whole sentences (every n >= 5 is one). The pool of length n is every
such paragraph, counted exactly: c(n) = sum over k = 4..8 of V^k c(n - k - 1), c(0) = 1.

Sampling rule (ours: the study samples text with ``lorem``, duplicates sentences and words at
random and cuts it at 500 tokens of an LLM's tokenizer). A paragraph is written sentence by
sentence; with t tokens left:
  - with probability 0.3 (the study's ``duplicate_sentence_prob``) a sentence of the paragraph
    so far, chosen uniformly, is written again, if what is left after it can still be whole
    sentences (0 or at least 5 tokens);
  - otherwise a fresh sentence of k words, with probability V^k c(t - k - 1) / c(t); its first
    word is uniform, each further word the previous one again with probability 0.1, else
    uniform.
Without the two repetitions this is the uniform law on the pool; with them every paragraph of
the pool still has a positive probability, and a stream is the distinct paragraphs in the
order they are drawn. Where a stream could come near the end of its pool it is uniform
instead: a pool of up to 2^22 paragraphs is a uniform permutation of the whole pool (each
index unranked to its paragraph), one of up to 2^64 is drawn by the rule without repetitions.
So the shortest paragraphs (one or two sentences at the default V) are uniform, and every
length of a cell at the study's size follows the rule. At the default V = 200 and L = 500
about a fifth of the positions follow an unambiguous token; at V = 27 (the study's words)
almost none do.

Row: ``[BOS, x_1..x_n, SEP, x_1..x_n, EOS]``, the copy and EOS supervised (causal-LM labels, as
copy's rows). Columns: ``source``, ``target`` and ``continuations`` (at each position i of the
copy, how many distinct tokens follow x_{i-1} in the paragraph; 0 at i = 1).

Metrics: ``exact_match`` and ``token_accuracy`` as copy's, then the error split of
`continuations`: ``unambiguous_error_rate`` and ``ambiguous_error_rate``, each class's errors per
position of that class (teacher-forced, pooled over rows), and ``ambiguous_error_share``, the
ambiguous errors' share of both. `continuations.copy_errors` scores a generated copy the same
way, aligned to the paragraph first.

The study's own split (``realistic/evaluation/eval_utils.py`` of lacoco-lab/always_a_transformer,
``ContextAwareBigramComparator.classify_alignments``) scores the ambiguous class as
1 - ambiguous errors / ``non_det_total`` with ``non_det_total = len(deterministic_tokens)``: it
divides the ambiguous errors by the number of UNambiguous token types, not of ambiguous ones
(and both of its totals count distinct token types, not positions). Here each class's errors
are divided by that class's own positions.

Config names: ``copy_L{L}[_{dist}][_V{V}]``, e.g. ``copy_L500`` (the study's size) or
``copy_L40_uniform_V16``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..citations import BORN_A_TRANSFORMER, Paper
from .cell import DISTS_WITHOUT_S2L, SEQUENCE, Examples, LongerSplitsCell, NameGrammar
from .continuations import previous_continuations, teacher_forced_errors
from .copying import copy_rows
from .limits import check_length, check_vocab
from .sampling import PERMUTATION_POOL_LIMIT, distinct_draws
from .symbols import example_table
from .token_layout import Vocab

# The study's 27 words (the `lorem` package's), then classical Lorem-ipsum words.
WORDS = (
    "adipisci aliquam amet consectetur dolor dolore dolorem eius est etincidunt ipsum labore "
    "magnam modi neque non numquam porro quaerat quiquia quisquam sed sit tempora ut velit "
    "voluptatem lorem elit eiusmod tempor incididunt magna aliqua enim ad minim veniam quis "
    "nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure "
    "in reprehenderit voluptate esse cillum eu fugiat nulla pariatur excepteur sint occaecat "
    "cupidatat proident sunt culpa qui officia deserunt mollit anim id laborum perspiciatis "
    "unde omnis iste natus error accusantium doloremque laudantium totam rem aperiam eaque "
    "ipsa quae ab illo inventore veritatis et quasi architecto beatae vitae dicta explicabo "
    "nemo ipsam quia voluptas aspernatur aut odit fugit consequuntur magni dolores eos ratione "
    "sequi nesciunt dolorum fuga harum quidem rerum facilis expedita distinctio nam libero "
    "tempore cum soluta nobis eligendi optio cumque nihil impedit quo minus maxime placeat "
    "facere possimus assumenda repellendus temporibus autem quibusdam officiis debitis "
    "necessitatibus saepe eveniet voluptates repudiandae recusandae itaque earum hic tenetur "
    "sapiente delectus reiciendis voluptatibus maiores alias perferendis doloribus asperiores "
    "repellat vel illum quod mollitia animi at vero accusamus iusto odio dignissimos ducimus "
    "blanditiis praesentium deleniti atque corrupti quos quas molestias excepturi occaecati "
    "provident similique obcaecati cupiditate molestiae ullam corporis suscipit laboriosam "
    "aliquid"
).split()
PERIOD_NAME = "."
TASKS = ("copy",)
DEFAULT_WORDS = 200
MIN_WORDS, MAX_WORDS = 4, 8  # words of a sentence
MIN_SPAN = MIN_WORDS + 1  # tokens of the shortest sentence, and of the shortest paragraph
# The sampling rule (module docstring).
P_SENTENCE_AGAIN, P_WORD_AGAIN = 0.3, 0.1
# Pools from this size up are drawn by the rule; smaller ones uniformly.
RULE_POOL = 1 << 64
# The first chunk of a stream's draws: rows are long, and a test split asks few a length.
FIRST_DRAW = 64

GRAMMARS = (NameGrammar(
    "lorem", "task", TASKS, DISTS_WITHOUT_S2L,
    f"L paragraph tokens (L >= {MIN_SPAN}, a sentence of {MIN_WORDS} words and its period)",
    ("copy_L500", "copy_L40_uniform_V16"), letter="V", symbol="V", default=DEFAULT_WORDS,
    param_name="V words",
    param_rule=f"2 <= V <= {len(WORDS)}",
    dist_note="no s2l: every pool but the shortest is too large to be used up"),)
# Big-integer counts beyond this are clipped where they only bound an index below 2^22.
_CLIP = 1 << 60


# Per V, c(0), c(1), ... and the sentence law's rows for t = 0, 1, ..., extended on demand: every
# length of every split reads the same rows (a cell at the study's size reads c up to 1,500).
_COUNTS: dict[int, list[int]] = {}
_LAWS: dict[int, list[list[float]]] = {}


def _counts(V: int, n: int) -> list[int]:
    """c(0..n) (at least): paragraphs of t tokens over V words (module docstring), exact."""
    c = _COUNTS.setdefault(V, [1])
    for t in range(len(c), n + 1):
        c.append(sum(V**k * c[t - k - 1] for k in range(MIN_WORDS, MAX_WORDS + 1)
                     if t - k - 1 >= 0))
    return c


def paragraphs(V: int, n: int) -> int:
    """How many paragraphs of n tokens there are over V words: c(n), exact."""
    return _counts(V, n)[n] if n >= 0 else 0


def _sentence_law(V: int, n: int) -> np.ndarray:
    """``[n + 1, 4]``: at t tokens left, P(a fresh sentence has at most 4, 5, 6, 7 words): the
    law of k under which the rest can be whole sentences, each k weighted by its paragraphs."""
    c, rows = _counts(V, n), _LAWS.setdefault(V, [])
    for t in range(len(rows), n + 1):
        # Python's int division gives the float of a ratio of huge ints exactly.
        p = [V**k * c[t - k - 1] / c[t] if t >= MIN_SPAN and t - k - 1 >= 0 else 0.0
             for k in range(MIN_WORDS, MAX_WORDS + 1)]
        rows.append(np.cumsum(p)[:-1].tolist() if t >= MIN_SPAN else [1.0] * 4)
    return np.array(rows[: n + 1])


@dataclass(frozen=True)
class LoremCell(LongerSplitsCell):
    """One lorem cell: the copy task, paragraph length L, length law and V words."""

    task: str
    max_len: int
    dist: str = "fixed"
    family_param: int = DEFAULT_WORDS
    dataset: str = "lorem"

    STREAM_ID: ClassVar[int] = 4
    TASK_NAME: ClassVar[str] = "Lorem-ipsum copying"
    TAGS: ClassVar[tuple[str, ...]] = ("copying", "natural-text", "length-generalization",
                                       "synthetic")
    COLUMNS: ClassVar[dict[str, str]] = {"source": SEQUENCE, "target": SEQUENCE,
                                         "continuations": SEQUENCE}
    GRAMMARS: ClassVar[tuple[NameGrammar, ...]] = GRAMMARS
    PAPER: ClassVar[Paper] = BORN_A_TRANSFORMER
    # The cell whose first validation row the dataset card shows: long enough for the rule.
    CARD_CELL: ClassVar[str] = "copy_L30_V8"

    def __post_init__(self):
        self.check_kind_and_length("a paragraph")
        if not isinstance(self.family_param, int) or not 2 <= self.family_param <= len(WORDS):
            raise ValueError(f"bad V={self.family_param!r}: the word list holds 2..{len(WORDS)} "
                             f"words; {self.grammar.text}")
        check_length(self)
        check_vocab(self)

    # -- lengths and vocabulary --------------------------------------------------------
    @property
    def min_length(self) -> int:
        return MIN_SPAN

    @property
    def period(self) -> int:
        return self.family_param

    @property
    def vocab(self) -> Vocab:
        return Vocab(self.family_param + 1)

    def symbol_names(self) -> list[str]:
        return [*WORDS[: self.family_param], PERIOD_NAME]

    def token_length(self, n: int) -> int:
        return 2 * n + 3

    # -- pools -----------------------------------------------------------------------
    def pool_size(self, n: int) -> int:
        """Exact: c(n), the paragraphs of n tokens (module docstring)."""
        return paragraphs(self.family_param, n)

    def stream_key(self, n: int) -> list[int]:
        return [self.STREAM_ID, TASKS.index(self.task), self.family_param, n]

    def stream(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        pool = self.pool_size(n)
        if pool <= PERMUTATION_POOL_LIMIT:
            return self.unrank(n, rng.permutation(pool)[:count])
        rule = pool >= RULE_POOL
        return distinct_draws(lambda r, size: self.draw(n, size, r, rule), count, rng,
                              first=FIRST_DRAW)

    def unrank(self, n: int, index: np.ndarray) -> np.ndarray:
        """The paragraphs of indices ``index`` (each in 0..c(n) - 1) of the pool of length n in
        its order: by the first sentence's length, then its words (base V, first word most
        significant), then the rest of the paragraph in the same order. ``[K, n]``."""
        V, c = self.family_param, [min(x, _CLIP) for x in _counts(self.family_param, n)[: n + 1]]
        spans = np.arange(MIN_SPAN, MAX_WORDS + 2)  # tokens of a sentence, with its period
        # blocks[t, s]: paragraphs of t tokens whose first sentence has spans[s] tokens.
        blocks = np.array([[min(V ** (s - 1) * c[t - s], _CLIP) if t >= s else 0 for s in spans]
                           for t in range(n + 1)], dtype=np.int64)
        before = np.cumsum(blocks, axis=1) - blocks  # [n + 1, 5]
        rest_count = np.array(c, dtype=np.int64)
        out = np.empty((len(index), n), dtype=np.uint8)
        rows = np.arange(len(index))
        idx = np.asarray(index, dtype=np.int64).copy()
        pos = np.zeros(len(index), dtype=np.int64)
        while (live := pos < n).any():
            r = rows[live]
            t = n - pos[r]
            s = (idx[r, None] >= before[t] + blocks[t]).sum(axis=1)  # first sentence's slot
            span = spans[s]
            local = idx[r] - before[t, s]
            tail = rest_count[t - span]
            words, idx[r] = local // tail, local % tail
            for d in range(MAX_WORDS):
                has = d < span - 1
                power = V ** np.maximum(span - 2 - d, 0)
                out[r[has], pos[r[has]] + d] = (words[has] // power[has]) % V
            out[r, pos[r] + span - 1] = self.period
            pos[r] += span
        return out

    def draw(self, n: int, size: int, rng: np.random.Generator, rule: bool = True) -> np.ndarray:
        """``size`` paragraphs of n tokens by the sampling rule (with repeats across rows);
        ``rule=False``: without its two repetitions, the uniform law on the pool. ``[size, n]``.

        First the sentences, one step a sentence: where each starts, its tokens, and the
        earlier sentence it writes again (-1: a fresh one). Then every position's word at
        once: a fresh sentence's own, a sentence written again its first writing's. Each step
        draws the same numbers for every row, used or not, so that a chunk's rows never depend
        on which branch another row took."""
        V = self.family_param
        p_sentence, p_word = (P_SENTENCE_AGAIN, P_WORD_AGAIN) if rule else (0.0, 0.0)
        law = _sentence_law(V, n)
        rows = np.arange(size)
        most = n // MIN_SPAN
        starts = np.zeros((size, most), dtype=np.int64)
        spans = np.zeros_like(starts)
        again_of = np.full_like(starts, -1)
        written = np.zeros(size, dtype=np.int64)  # sentences so far
        pos = np.zeros(size, dtype=np.int64)
        while (live := pos < n).any():
            t = n - pos
            again, pick, length = rng.random(size), rng.random(size), rng.random(size)
            # A sentence again: one of those written, uniformly, if the rest still fits.
            which = np.minimum((pick * written).astype(np.int64), np.maximum(written - 1, 0))
            old_span = spans[rows, which]
            left = t - old_span
            copy = ((written > 0) & (again < p_sentence)
                    & ((left == 0) | (left >= MIN_SPAN)))
            # A fresh one: k words by the law at t tokens left.
            k = MIN_WORDS + (length[:, None] > law[t]).sum(axis=1)
            span = np.where(copy, old_span, k + 1)
            r = rows[live]
            starts[r, written[r]], spans[r, written[r]] = pos[r], span[r]
            again_of[r, written[r]] = np.where(copy, which, -1)[r]
            written += live
            pos += np.where(live, span, 0)
        # Each sentence's first writing: follow "again" links down to a fresh sentence.
        first = np.where(again_of >= 0, again_of, np.arange(most))
        while True:
            deeper = np.take_along_axis(first, first, axis=1)
            if (deeper == first).all():
                break
            first = deeper
        # Fresh words everywhere, each the previous word again or new (never the first word of a
        # sentence), and the periods.
        words = rng.integers(0, V, (size, n), dtype=np.uint8)
        repeat = rng.random((size, n), dtype=np.float32) < p_word
        opens = np.zeros((size, n), dtype=bool)
        opens[rows.repeat(written), starts[np.arange(most)[None, :] < written[:, None]]] = True
        place = np.arange(n, dtype=np.int32)
        source = np.maximum.accumulate(np.where(repeat & ~opens, 0, place), axis=1)
        text = np.take_along_axis(words, source, axis=1)
        ends = np.zeros((size, n), dtype=bool)
        ends[:, -1] = True
        ends[:, :-1] = opens[:, 1:]
        text[ends] = self.period
        # Each position from the same place of its sentence's first writing.
        sentence = np.cumsum(opens, axis=1, dtype=np.int32) - 1
        origin = np.take_along_axis(first, sentence, axis=1)
        offset = place - np.take_along_axis(starts, sentence, axis=1)
        return np.take_along_axis(text, np.take_along_axis(starts, origin, axis=1) + offset,
                                  axis=1)

    # -- rows ------------------------------------------------------------------------
    def encode(self, items: np.ndarray, lengths: np.ndarray) -> Examples:
        ids, labels, source, target = copy_rows(self.vocab, items, lengths)
        return Examples(lengths, ids, labels, 2 * lengths + 3, {
            "source": source, "target": target,
            "continuations": previous_continuations(source, lengths)})

    def metrics(self, predictions, labels) -> dict[str, float]:
        from ..metrics import exact_match, outputs_and_targets, token_accuracy

        outputs, targets = outputs_and_targets(predictions, labels)
        # Each row's copy: its symbol targets, in order, and the outputs that write them.
        mask = (targets >= 0) & (targets < self.vocab.order)
        lengths = mask.sum(axis=1)
        place = np.cumsum(mask, axis=1) - 1
        text = np.zeros((len(targets), int(lengths.max(initial=0))), dtype=np.int64)
        out = np.zeros_like(text)
        r, j = np.nonzero(mask)
        text[r, place[r, j]], out[r, place[r, j]] = targets[r, j], outputs[r, j]
        return {"exact_match": exact_match(predictions, labels, self.vocab.order),
                "token_accuracy": token_accuracy(predictions, labels, self.vocab.order),
                **teacher_forced_errors(out, text, lengths).rates()}

    def metric_chance(self, metric: str) -> float | None:
        # A uniform guess is wrong with the same chance at every position, whatever its class;
        # the ambiguous share of those errors is the rows' share of ambiguous positions.
        if metric.endswith("_error_rate"):
            return 1.0 - 1.0 / self.alphabet_size
        return None

    # -- what the cell is --------------------------------------------------------------
    def describe(self) -> dict[str, str]:
        return {"task": self.task, "words": str(self.family_param)}

    @classmethod
    def layout_table(cls) -> str:
        return example_table([cls.parse("lorem", cls.CARD_CELL)])

    @property
    def variant(self) -> str:
        return f"V{self.family_param}"
