"""Small data and models for the training tests."""

from __future__ import annotations

import torch
from torch import nn

from hf_induction.training import TrainData

PAD = 0


def echo_data(
    pool: int = 64, n_val: int = 32, vocab: int = 6, max_len: int = 8, seed: int = 0
) -> TrainData:
    """At every position, output the token just read, variable lengths.

    In the causal-LM convention the output after ``input_ids[:j]`` is scored against
    ``labels[j]``, so the target of the output at position j is ``input_ids[j]``:
    ``labels[:, j + 1] = input_ids[:, j]``.
    """
    g = torch.Generator().manual_seed(seed)

    def split(rows: int) -> tuple[torch.Tensor, torch.Tensor]:
        ids = torch.randint(1, vocab, (rows, max_len), generator=g)
        lengths = torch.randint(2, max_len + 1, (rows,), generator=g)
        pad = torch.arange(max_len) >= lengths[:, None]
        labels = torch.full_like(ids, -100)
        labels[:, 1:] = ids[:, :-1].masked_fill(pad[:, 1:], -100)
        return ids.masked_fill(pad, PAD), labels

    train_ids, train_labels = split(pool)
    val_ids, val_labels = split(n_val)
    return TrainData(train_ids, train_labels, val_ids, val_labels)


class Output:
    def __init__(self, logits: torch.Tensor) -> None:
        self.logits = logits


class EmbedLinear(nn.Module):
    """Embedding, tanh, linear head: the fastest model that can learn the echo task."""

    def __init__(self, vocab: int = 6, hidden: int = 8, dtype=torch.float64) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden, dtype=dtype)
        self.head = nn.Linear(hidden, vocab, dtype=dtype)

    def forward(self, input_ids: torch.Tensor) -> Output:
        return Output(self.head(torch.tanh(self.embed(input_ids))))


class Scaled(EmbedLinear):
    """Logits multiplied by a constant: ``inf`` makes every loss non-finite."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = scale

    def forward(self, input_ids: torch.Tensor) -> Output:
        return Output(super().forward(input_ids).logits * self.scale)


class NoVmap(EmbedLinear):
    """A model whose forward fails under vmap (a data-dependent Python branch)."""

    def forward(self, input_ids: torch.Tensor) -> Output:
        if input_ids.sum().item() < 0:
            raise AssertionError("unreachable")
        return super().forward(input_ids)


def tiny_gpt2(vocab: int = 6, dtype=torch.float64) -> nn.Module:
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=vocab,
        n_positions=64,
        n_embd=16,
        n_layer=1,
        n_head=2,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=None,
        eos_token_id=None,
        use_cache=False,
    )
    return GPT2LMHeadModel(config).to(dtype)


class SometimesNan(EmbedLinear):
    """Emits NaN logits from the first step for some seeds (a sign drawn at initialisation)."""

    def __init__(self) -> None:
        super().__init__()
        self.sign = nn.Parameter(torch.randn((), dtype=torch.float64))

    def forward(self, input_ids: torch.Tensor) -> Output:
        logits = super().forward(input_ids).logits
        return Output(logits + torch.where(self.sign > 0, 0.0, torch.nan) * self.sign)


class NoVmapWithHook(NoVmap):
    """Fails under vmap in ``forward`` but declares a vmap-friendly ``vmap_forward``."""

    def vmap_forward(self, input_ids: torch.Tensor) -> Output:
        return EmbedLinear.forward(self, input_ids)
