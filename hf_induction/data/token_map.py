"""A cell's token ids carried by another tokenizer's: how a pretrained model reads a cell.

Every cell token (each symbol, then BOS, SEP, EOS, PAD: `tasks.token_layout`) becomes one
token id of the model's own tokenizer. A symbol takes its own name (" a", then "a"; " 3",
then "3") where the tokenizer holds that string as exactly one id, else the first free id of
the tokenizer's vocabulary whose string does; each string is checked both ways:
``encode(s) == [id]`` and ``decode([id]) == s``. BOS and EOS are the tokenizer's own where it
has them (GPT-2's ``<|endoftext|>`` is both), SEP is the second study's separator ">" (or the
next free string), PAD the tokenizer's PAD or EOS (right padding is never read by a causal
model's supervised outputs). Symbols never share an id with each other or a special token.

Rows keep the causal-LM label convention: a map changes ids, never positions. Predictions
are read back through `TokenMap.decode`, where an id that carries no cell token is -1, which
no label equals: a prediction outside the cell's tokens is simply wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ..tasks import IGNORE, TaskCell, Vocab

# The second study's separator between a prompt and its answer, then the cell layout's own.
SEP_STRINGS = (">", " >", "=", " =")


@dataclass(frozen=True)
class TokenMap:
    """Task token id -> model token id, for one cell's vocabulary and one tokenizer.

    Args:
        ids: the model id of each cell id, in the layout's order (symbols, BOS, SEP, EOS, PAD).
        size: the model's vocabulary size (every id is below it).
        strings: the string of each symbol's id (none for the identity map).
        tokenizer: the tokenizer the ids are of (None for the identity map: the cell's own,
            `tasks.tokenizer.build_tokenizer`); a trained model is saved with it.
    """

    ids: tuple[int, ...]
    size: int
    strings: tuple[str, ...] = ()
    tokenizer: Any = field(default=None, compare=False, repr=False)

    @classmethod
    def identity(cls, vocab: Vocab) -> TokenMap:
        """The cell's own ids, for a model built at the cell's vocabulary."""
        return cls(tuple(range(vocab.size)), vocab.size)

    @classmethod
    def build(cls, cell: TaskCell, tokenizer, size: int | None = None,
              name: str = "the tokenizer") -> TokenMap:
        """The map of ``cell``'s tokens into ``tokenizer``'s single tokens below ``size`` (the
        model's vocabulary; default the tokenizer's length). ValueError, one line naming the
        cell and ``name``, if the tokenizer has too few single-token strings for it."""
        vocab = cell.vocab
        size = len(tokenizer) if size is None else int(size)
        reserved = set(tokenizer.all_special_ids)
        used: set[int] = set()

        def single(text: str) -> int | None:
            found = tokenizer.encode(text, add_special_tokens=False)
            if (len(found) == 1 and found[0] < size and found[0] not in used
                    and found[0] not in reserved
                    and tokenizer.decode(found, clean_up_tokenization_spaces=False) == text):
                return found[0]
            return None

        def spare():
            """Free single-token strings of the vocabulary, by id."""
            for i in range(size):
                if i in used or i in reserved:
                    continue
                text = tokenizer.decode([i], clean_up_tokenization_spaces=False)
                if text.strip() and single(text) == i:
                    yield i

        def take(candidates, pool) -> int | None:
            for text in candidates:
                if (i := single(text)) is not None:
                    used.add(i)
                    return i
            i = next(pool, None)
            if i is not None:
                used.add(i)
            return i

        def own(token_id: int | None) -> int | None:
            return token_id if token_id is not None and token_id < size else None

        pool = spare()
        bos, eos = own(tokenizer.bos_token_id), own(tokenizer.eos_token_id)
        bos, eos = (eos if bos is None else bos), (bos if eos is None else eos)
        used.update(i for i in (bos, eos) if i is not None)
        # SEP before the symbols, so that none of them takes ">".
        sep = take(SEP_STRINGS, pool)
        if bos is None:
            bos = eos = take((), pool)
        # The symbols' own names first, then free ids for the names the tokenizer splits.
        symbols = [take((" " + n, n), iter(())) for n in cell.symbol_names()]
        symbols = [take((), pool) if i is None else i for i in symbols]
        if None in (*symbols, sep, bos):
            offered = sum(i is not None for i in (*symbols, sep))
            raise ValueError(
                f"{cell.dataset}/{cell} needs {vocab.order} symbols and a separator as distinct "
                f"single tokens of {name}, which offers {offered} (strings of ids below {size} "
                "that encode back to their id); a cell of fewer symbols fits")
        pad = own(tokenizer.pad_token_id)
        ids = (*symbols, bos, sep, eos, eos if pad is None else pad)
        strings = tuple(tokenizer.decode([i], clean_up_tokenization_spaces=False)
                        for i in symbols)
        return cls(tuple(int(i) for i in ids), size, strings, tokenizer)

    @cached_property
    def _forward(self) -> np.ndarray:
        return np.asarray(self.ids, dtype=np.int64)

    @cached_property
    def _inverse(self) -> np.ndarray:
        inverse = np.full(self.size, -1, dtype=np.int64)
        order = len(self.ids) - 4
        vocab = Vocab(order)
        # Symbols last: they never share an id; of the specials that may (GPT-2's BOS is its
        # EOS, and PAD falls back to it), EOS wins, the one a model is trained to predict.
        for cell_id in (vocab.pad, vocab.bos, vocab.sep, vocab.eos, *range(order)):
            inverse[self.ids[cell_id]] = cell_id
        return inverse

    @property
    def pad(self) -> int:
        return self.ids[-1]

    def encode(self, cell_ids: np.ndarray) -> np.ndarray:
        """Task ids (input ids or labels) -> model ids; -100 stays -100."""
        cell_ids = np.asarray(cell_ids)
        mapped = self._forward[np.where(cell_ids == IGNORE, 0, cell_ids)]
        return np.where(cell_ids == IGNORE, IGNORE, mapped)

    def decode(self, model_ids: np.ndarray) -> np.ndarray:
        """Model ids (predictions) -> cell ids; -1 for an id that carries no cell token."""
        model_ids = np.asarray(model_ids)
        inside = (model_ids >= 0) & (model_ids < self.size)
        return np.where(inside, self._inverse[np.where(inside, model_ids, 0)], -1)
