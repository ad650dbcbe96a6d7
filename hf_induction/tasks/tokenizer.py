"""A word-level tokenizer per vocabulary, so text such as ``"3 1 4 ="`` gives the layout's ids.

Symbol tokens are the family's symbol names ("3" in Z_m, "10234" in S_5, "c" in retrieval),
then ``<bos>``, ``=`` (SEP), ``<eos>``, ``<pad>``. Encoding prepends ``<bos>``, as every
example starts with it. transformers is imported here only, so the rest of the tasks
room stays numpy-only.
"""

from __future__ import annotations

from .cell import TaskCell
from .groups import Group
from .token_layout import SPECIAL_TOKENS, Vocab


def build_tokenizer(cell_or_group: TaskCell | Group):
    """A ``PreTrainedTokenizerFast`` whose ids follow the token layout exactly."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    if isinstance(cell_or_group, Group):
        symbols = cell_or_group.element_names()
    else:
        symbols = cell_or_group.symbol_names()
    names = symbols + list(SPECIAL_TOKENS)
    vocab = Vocab(len(symbols))
    bos, sep, eos, pad = SPECIAL_TOKENS
    core = Tokenizer(models.WordLevel({tok: i for i, tok in enumerate(names)}, unk_token=pad))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A", special_tokens=[(bos, vocab.bos)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=core, bos_token=bos, eos_token=eos, pad_token=pad, sep_token=sep,
        unk_token=pad, model_input_names=["input_ids"],
    )
