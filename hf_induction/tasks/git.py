"""Git history: copy commit lines forward (revert) or backward (cherry-pick).

The second natural copying scenario of *Born a Transformer -- Always a Transformer?* (arXiv
2505.21785): a history of n commits, newest first as ``git log --oneline`` prints it, each line
a 7-hex-digit hash and a message ("Fix caching"). ``revert`` asks for the lines in the same
order (the order ``git revert`` takes them: a forward copy); ``cherry_pick`` asks for them
oldest first (the order ``git cherry-pick`` takes them: a backward copy of the lines, each line
as it is). n = L lines.

Tokens: the 16 hex digits, the study's 12 actions and 11 topics (one token each; its "Bug fix"
is written ``Bugfix``) and the line end ``NL``: 40 symbols, ids in that order. A line is
`LINE_TOKENS` = 10 tokens: 7 hash digits (most significant first), action, topic, ``NL``.

Pool: n lines with pairwise distinct hashes and any messages, exactly perm(16^7, n) x 132^n,
drawn uniformly: each hash uniform over those not yet in the history (redrawn while it repeats
one), each action and topic uniform (the study draws hashes without that check).

Row: ``[BOS, line_1..line_n, SEP, line_s(1)..line_s(n), EOS]`` with s the identity (revert) or
the reversal (cherry_pick); the target and EOS supervised (causal-LM labels). Columns: ``hash``
(each source line's hash as an integer), ``action`` and ``topic`` (indices into `ACTIONS` and
`TOPICS`), ``target_hash`` (the hashes in the target's order).

Metrics: ``exact_match`` (every target token right), ``line_exact_match`` (the share of target
lines whose ten tokens are all right, pooled over rows), ``token_accuracy``; teacher-forced.

Config names: ``{task}_L{L}[_{dist}]``, e.g. ``revert_L10``, ``cherry_pick_L20_uniform``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..citations import BORN_A_TRANSFORMER, Paper
from .cell import DISTS_WITHOUT_S2L, SEQUENCE, Examples, LongerSplitsCell, NameGrammar
from .limits import check_length
from .sampling import distinct_draws
from .symbols import example_table
from .token_layout import IGNORE, Vocab

TASKS = ("revert", "cherry_pick")
HEX = "0123456789abcdef"
HASH_DIGITS = 7
HASHES = len(HEX) ** HASH_DIGITS
# The study's commit messages: an action and a topic.
ACTIONS = ("Add", "Remove", "Fix", "Refactor", "Update", "Improve", "Optimize", "Document",
           "Cleanup", "Merge", "Revert", "Bugfix")
TOPICS = ("authentication", "API", "search", "database", "UI", "CLI", "logging", "tests",
          "deployment", "config", "caching")
NEWLINE_NAME = "NL"
FIRST_ACTION = len(HEX)
FIRST_TOPIC = FIRST_ACTION + len(ACTIONS)
NEWLINE = FIRST_TOPIC + len(TOPICS)
SYMBOLS = NEWLINE + 1
LINE_TOKENS = HASH_DIGITS + 3
# The first chunk of a stream's draws: rows are long, and a test split asks few a length.
FIRST_DRAW = 64

GRAMMARS = (NameGrammar(
    "git", "task", TASKS, DISTS_WITHOUT_S2L, "L commit lines (L >= 2)",
    ("revert_L10", "cherry_pick_L20_uniform"),
    dist_note="no s2l: every pool is too large to be used up"),)


@dataclass(frozen=True)
class GitCell(LongerSplitsCell):
    """One git cell: revert or cherry-pick, L commit lines, length law."""

    task: str
    max_len: int
    dist: str = "fixed"
    dataset: str = "git"

    STREAM_ID: ClassVar[int] = 5
    TASK_NAME: ClassVar[str] = "Git history copying"
    TAGS: ClassVar[tuple[str, ...]] = ("copying", "code", "length-generalization", "synthetic")
    COLUMNS: ClassVar[dict[str, str]] = {"hash": SEQUENCE, "action": SEQUENCE,
                                         "topic": SEQUENCE, "target_hash": SEQUENCE}
    GRAMMARS: ClassVar[tuple[NameGrammar, ...]] = GRAMMARS
    PAPER: ClassVar[Paper] = BORN_A_TRANSFORMER

    def __post_init__(self):
        self.check_kind_and_length("a history of L lines")
        check_length(self)

    # -- lengths and vocabulary --------------------------------------------------------
    @property
    def backward(self) -> bool:
        return self.task == "cherry_pick"

    @property
    def vocab(self) -> Vocab:
        return Vocab(SYMBOLS)

    def symbol_names(self) -> list[str]:
        return [*HEX, *ACTIONS, *TOPICS, NEWLINE_NAME]

    def item_width(self, n: int) -> int:
        return LINE_TOKENS * n

    def token_length(self, n: int) -> int:
        return 2 * LINE_TOKENS * n + 3

    def answer_tokens(self, n: int) -> int:
        return LINE_TOKENS * n

    # -- pools -----------------------------------------------------------------------
    def pool_size(self, n: int) -> int:
        """Exact: perm(16^7, n) hash sequences times (12 x 11)^n messages."""
        return math.perm(HASHES, n) * (len(ACTIONS) * len(TOPICS)) ** n

    def stream_key(self, n: int) -> list[int]:
        return [self.STREAM_ID, TASKS.index(self.task), n]

    def stream(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        return distinct_draws(lambda r, size: self.draw(n, size, r), count, rng,
                              first=FIRST_DRAW)

    def draw(self, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` histories of n lines drawn uniformly from the pool (with repeats across
        rows), as their source tokens ``[size, 10 n]``."""
        hashes = np.empty((size, n), dtype=np.int64)
        for i in range(n):
            h = rng.integers(0, HASHES, size)
            clash = (hashes[:, :i] == h[:, None]).any(axis=1)
            while clash.any():
                h[clash] = rng.integers(0, HASHES, int(clash.sum()))
                clash = (hashes[:, :i] == h[:, None]).any(axis=1)
            hashes[:, i] = h
        actions = rng.integers(0, len(ACTIONS), (size, n))
        topics = rng.integers(0, len(TOPICS), (size, n))
        return lines(hashes, actions, topics)

    # -- rows ------------------------------------------------------------------------
    def encode(self, items: np.ndarray, lengths: np.ndarray) -> Examples:
        vocab = self.vocab
        k = len(lengths)
        width = int(lengths.max(initial=0))
        ids = np.full((k, self.token_length(width)), vocab.pad, dtype=np.int64)
        labels = np.full_like(ids, IGNORE)
        columns = {name: np.zeros((k, width), dtype=np.int64) for name in self.COLUMNS}
        for n in np.unique(lengths).tolist():
            rows = np.flatnonzero(lengths == n)
            source = items[rows, : LINE_TOKENS * n].astype(np.int64).reshape(-1, n, LINE_TOKENS)
            target = source[:, ::-1] if self.backward else source
            digits = source[:, :, :HASH_DIGITS]
            columns["hash"][rows, :n] = digits @ (len(HEX) ** np.arange(HASH_DIGITS)[::-1])
            columns["action"][rows, :n] = source[:, :, HASH_DIGITS] - FIRST_ACTION
            columns["topic"][rows, :n] = source[:, :, HASH_DIGITS + 1] - FIRST_TOPIC
            columns["target_hash"][rows, :n] = columns["hash"][rows, :n][:, ::-1] \
                if self.backward else columns["hash"][rows, :n]
            width_n = LINE_TOKENS * n
            ids[rows, 0] = vocab.bos
            ids[rows, 1 : width_n + 1] = source.reshape(-1, width_n)
            ids[rows, width_n + 1] = vocab.sep
            ids[rows, width_n + 2 : 2 * width_n + 2] = target.reshape(-1, width_n)
            ids[rows, 2 * width_n + 2] = vocab.eos
            labels[rows, width_n + 2 : 2 * width_n + 3] = ids[rows, width_n + 2 : 2 * width_n + 3]
        return Examples(lengths, ids, labels, 2 * LINE_TOKENS * lengths + 3, columns)

    def metrics(self, predictions, labels) -> dict[str, float]:
        from ..metrics import exact_match, outputs_and_targets, token_accuracy

        outputs, targets = outputs_and_targets(predictions, labels)
        mask = (targets >= 0) & (targets < SYMBOLS)
        # Line of each target token: its rank among the row's targets, ten to a line.
        line = (np.cumsum(mask, axis=1) - 1) // LINE_TOKENS
        per_row = int(mask.sum(axis=1).max(initial=0)) // LINE_TOKENS + 1
        key = (np.arange(len(targets))[:, None] * per_row + line)[mask]  # (row, line)
        wrong = (outputs != targets)[mask]
        total, bad = np.unique(key).size, np.unique(key[wrong]).size
        return {"exact_match": exact_match(predictions, labels, SYMBOLS),
                "line_exact_match": (total - bad) / total if total else float("nan"),
                "token_accuracy": token_accuracy(predictions, labels, SYMBOLS)}

    def metric_chance(self, metric: str) -> float | None:
        if metric == "line_exact_match":
            return (1.0 / self.alphabet_size) ** LINE_TOKENS
        return None

    # -- what the cell is --------------------------------------------------------------
    def describe(self) -> dict[str, str]:
        return {"task": self.task, "order": "backward" if self.backward else "forward"}

    @classmethod
    def layout_table(cls) -> str:
        return example_table([cls(task, 2) for task in TASKS])

    @property
    def variant(self) -> str:
        return f"hash{HASH_DIGITS}"

    @property
    def family_param(self) -> int:
        # Git names have no parameter part: the hash width is the family's one variant.
        return HASH_DIGITS


def lines(hashes: np.ndarray, actions: np.ndarray, topics: np.ndarray) -> np.ndarray:
    """The source tokens of histories: ``[K, n]`` hashes, action and topic indices ->
    ``[K, 10 n]`` (uint8), each line its hash digits, action, topic and line end."""
    k, n = hashes.shape
    out = np.empty((k, n, LINE_TOKENS), dtype=np.uint8)
    shifts = 4 * np.arange(HASH_DIGITS)[::-1]
    out[:, :, :HASH_DIGITS] = (hashes[:, :, None] >> shifts) & 15
    out[:, :, HASH_DIGITS] = FIRST_ACTION + actions
    out[:, :, HASH_DIGITS + 1] = FIRST_TOPIC + topics
    out[:, :, HASH_DIGITS + 2] = NEWLINE
    return out.reshape(k, n * LINE_TOKENS)
