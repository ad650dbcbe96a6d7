"""A word-level tokenizer per vocabulary, so text such as ``"3 1 4 ="`` gives the layout's ids.

Element tokens are the group's element names ("3" in Z_m, "10234" in S_5), then
``<bos>``, ``=`` (SEP), ``<eos>``, ``<pad>``. Encoding prepends ``<bos>``, as every
example starts with it. transformers is imported here only, so the rest of the tasks
room stays numpy-only.
"""

from __future__ import annotations

from .config import TaskConfig
from .groups import Group
from .layout import SPECIAL_TOKENS, Vocab


def build_tokenizer(group_or_cfg: Group | TaskConfig):
    """A ``PreTrainedTokenizerFast`` whose ids follow the token layout exactly."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    group = group_or_cfg.group if isinstance(group_or_cfg, TaskConfig) else group_or_cfg
    names = group.element_names() + list(SPECIAL_TOKENS)
    vocab = Vocab(group.order)
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
