"""The token layout every family shares, and the labels' convention.

A family's symbols (group elements, letters) are ids 0..order-1; then BOS = order,
SEP = order+1, EOS = order+2, PAD = order+3. Labels follow the causal-LM convention of every
`AutoModelForCausalLM`: the model shifts, so the output after reading ``input_ids[:j]`` is
trained against ``labels[j]``; -100 where nothing is supervised (always at position 0, which
no output predicts). Each family writes its own rows in this layout (the word problems'
formats are in ``word_problems``).
"""

from __future__ import annotations

from dataclasses import dataclass

IGNORE = -100
SPECIAL_TOKENS = ("<bos>", "=", "<eos>", "<pad>")
# Bumped whenever the token layout of a row changes. 1: aligned labels (labels[i] the target
# of the output at position i). 2: causal-LM labels (the model shifts). The sampled words
# and states are the same under both, and so is every loss the trainer computes.
LAYOUT_VERSION = 2


class _AfterSymbols:
    """The id ``offset`` places after a vocabulary's last symbol: a read-only `Vocab` attribute."""

    def __init__(self, offset: int) -> None:
        self.offset = offset

    def __get__(self, vocab: Vocab | None, owner: type | None = None) -> int:
        return self if vocab is None else vocab.order + self.offset


@dataclass(frozen=True)
class Vocab:
    """Token ids of a vocabulary of ``order`` symbols (group elements, letters), then the
    special tokens BOS, SEP, EOS, PAD: the layout every family shares."""

    order: int

    # The special tokens' ids in SPECIAL_TOKENS' order, then the vocabulary's size.
    bos, sep, eos, pad, size = (_AfterSymbols(i) for i in range(len(SPECIAL_TOKENS) + 1))

    def special_token_ids(self) -> dict[str, int]:
        """The ids a model config carries (`transformers` names)."""
        return {"bos_token_id": self.bos, "eos_token_id": self.eos, "pad_token_id": self.pad}
