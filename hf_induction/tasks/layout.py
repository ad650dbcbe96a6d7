"""The token layout shared by data, models, metrics and the search.

Element id k is token id k; then BOS = |G|, SEP = |G|+1, EOS = |G|+2, PAD = |G|+3.
Labels follow the causal-LM convention of every `AutoModelForCausalLM`: the model shifts,
so the output after reading ``input_ids[:j]`` is trained against ``labels[j]``; -100 where
nothing is supervised (always at position 0, which no output predicts).

    acot:     input_ids = [BOS, g_1..g_n, EOS]               labels = [-100 x 2, s_1..s_n]
    outcome:  input_ids = [BOS, g_1..g_n, SEP, s_n]          labels = [-100 x (n+2), s_n]
    cot:      input_ids = [BOS, g_1..g_n, SEP, s_1..s_n, EOS] labels = [-100 x (n+2), s_1..s_n, EOS]

acot's trailing EOS only lines the shift up (the output after g_i is s_i; the states are
never fed back as inputs). For outcome and cot the supervised tokens are the input's own
continuation, as in any prompt + completion row: ``labels`` is ``input_ids`` with the
prompt [BOS, g_1..g_n, SEP] masked, and ``generate()`` from the prompt answers the task.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

IGNORE = -100
SPECIAL_TOKENS = ("<bos>", "=", "<eos>", "<pad>")
FORMAT_NAMES = ("outcome", "cot", "acot")
# Bumped whenever the token layout of a row changes. 1: aligned labels (labels[i] the target
# of the output at position i). 2: causal-LM labels (the model shifts). The sampled words
# and states are the same under both, and so is every loss the trainer computes.
LAYOUT_VERSION = 2


@dataclass(frozen=True)
class Vocab:
    """Token ids of a vocabulary of ``order`` symbols (group elements, letters), then the
    special tokens BOS, SEP, EOS, PAD: the layout every family shares."""

    order: int

    @property
    def bos(self) -> int:
        return self.order

    @property
    def sep(self) -> int:
        return self.order + 1

    @property
    def eos(self) -> int:
        return self.order + 2

    @property
    def pad(self) -> int:
        return self.order + 3

    @property
    def size(self) -> int:
        return self.order + 4

    def special_token_ids(self) -> dict[str, int]:
        """The ids a model config carries (`transformers` names)."""
        return {"bos_token_id": self.bos, "eos_token_id": self.eos, "pad_token_id": self.pad}


def _check_format(fmt: str) -> None:
    if fmt not in FORMAT_NAMES:
        raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMAT_NAMES)}")


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
    for fmt in FORMAT_NAMES:
        ids, labels = encode(fmt, elements, elements + n, np.array([n]), vocab)
        rows.append(f"| {fmt} | {' '.join(names[i] for i in ids[0])} | "
                    f"{' '.join(names[i] for i in labels[0])} |")
    return "\n".join(rows)
