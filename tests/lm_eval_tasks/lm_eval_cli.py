"""``python tests/lm_eval_tasks/lm_eval_cli.py MODEL run ARGS``: the `lm-eval` console script
on a tiny random GPT-2 that it first writes to MODEL, with only the ``--include_path`` tasks
indexed.

The harness's own thousands of task files take 20 s of CPU to index and none of them runs in
a test; everything else (arguments, the `hf` model, the tasks, the result files) is the
console script's own path. The model is made here, in the process that imports transformers
anyway: a byte-level tokenizer (any prompt reads) and one layer of width 32.
"""

import sys
from pathlib import Path


def tiny_model(out: Path) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator([], trainers.BpeTrainer(
        special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|endoftext|>",
                                   bos_token="<|endoftext|>", pad_token="<|endoftext|>")
    fast.save_pretrained(out)
    eos = fast.eos_token_id
    GPT2LMHeadModel(GPT2Config(vocab_size=len(fast), n_positions=2048, n_embd=32, n_layer=1,
                               n_head=2, bos_token_id=eos, eos_token_id=eos)).save_pretrained(out)


def main() -> None:
    tiny_model(Path(sys.argv[1]))
    from lm_eval.__main__ import cli_evaluate
    from lm_eval.tasks import manager

    init = manager.TaskManager.__init__
    manager.TaskManager.__init__ = lambda self, *a, **k: init(
        self, *a, **{**k, "include_defaults": False})
    sys.argv = ["lm-eval", *sys.argv[2:]]
    cli_evaluate()


if __name__ == "__main__":
    main()
