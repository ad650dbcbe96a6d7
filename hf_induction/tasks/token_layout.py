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
