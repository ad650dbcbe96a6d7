"""A pretrained causal LM made here, with nothing downloaded: a byte-level BPE tokenizer
(`tokenizers`) trained on a few KB of plain English (tiny_english.txt), wrapped as a
`PreTrainedTokenizerFast`, and a tiny GPT-2 pretrained briefly on the same text, so that
"pretrained" means a model whose loss on held-out text is measurably below its loss at
initialisation. Saved as a checkpoint folder (model and tokenizer), as a Hub model is.

The published fine-tuning runs (results/finetune) start from a larger one of the same recipe,
made from a checkout with

    python -m tests.runner.tiny_pretrained build/tiny-gpt2 --vocab 600 --positions 1024 \
        --steps 100
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TEXT = Path(__file__).with_name("tiny_english.txt")
END = "<|endoftext|>"
VOCAB = 400
BLOCK = 32


@dataclass(frozen=True)
class Pretrained:
    folder: Path
    loss_at_init: float  # held-out text, before pretraining
    loss_after: float  # held-out text, after


def train_tokenizer(vocab: int = VOCAB):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    core.train_from_iterator([TEXT.read_text()], trainers.BpeTrainer(
        vocab_size=vocab, special_tokens=[END],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token=END, eos_token=END)


def pretrain(folder: Path, steps: int = 150, seed: int = 0, vocab: int = VOCAB,
             positions: int = 128) -> Pretrained:
    """Tokenizer (``vocab`` tokens) and GPT-2 (2 layers, d 64, ``positions`` learned
    positions) trained on the first 90% of the text, scored on the rest before and after,
    saved into ``folder``."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = train_tokenizer(vocab)
    ids = torch.tensor(tokenizer.encode(TEXT.read_text()))
    cut = int(0.9 * len(ids))
    train, held_out = ids[:cut], ids[cut:]
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(GPT2Config(
        vocab_size=len(tokenizer), n_positions=positions, n_embd=64, n_layer=2, n_head=4,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id))

    @torch.no_grad()
    def held_out_loss() -> float:
        model.eval()
        blocks = held_out[: len(held_out) // BLOCK * BLOCK].view(-1, BLOCK)
        loss = model(input_ids=blocks, labels=blocks).loss.item()
        model.train()
        return loss

    before = held_out_loss()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(seed)
    model.train()
    for _ in range(steps):
        starts = torch.randint(0, len(train) - BLOCK, (16,), generator=generator)
        batch = torch.stack([train[s: s + BLOCK] for s in starts.tolist()])
        loss = model(input_ids=batch, labels=batch).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    after = held_out_loss()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return Pretrained(folder, before, after)


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser(description="Make the tiny pretrained GPT-2 and its tokenizer.")
    p.add_argument("out", type=Path)
    p.add_argument("--vocab", type=int, default=VOCAB)
    p.add_argument("--positions", type=int, default=128)
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    made = pretrain(a.out, a.steps, a.seed, a.vocab, a.positions)
    print(f"{made.folder}: held-out loss {made.loss_at_init:.3f} at init, "
          f"{made.loss_after:.3f} after {a.steps} steps")
