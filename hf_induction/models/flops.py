"""Analytic FLOPs of a model: what bench.py divides by and what cost estimates count."""

from __future__ import annotations


def flops_per_token(name: str, config, length: int) -> float:
    """Forward FLOPs per token at sequence length ``length``: matrix products, 2 per multiply-add.

    GPT-2: 24 d^2 per layer (QKV, projection, MLP x4) plus 4 T d for QK^T and AV at full
    length T (no causal halving), and the head. LSTM: 8 H (E + H) per layer and the head.
    Dense-SSM: the useful 2 d^2 of A(x_t) h (whatever the kernel: `all_tokens` does V times
    that, `grouped` about twice it with padding) and the head.
    Mamba: in/out projections, x_proj and dt_proj (2 x (2 d e + e (r + 2 n) + r e + e d)
    with e = expand d, r = dt_rank, n = state_size) per layer, and the head; the scan and
    the convolution are elementwise and left out. A training step is about 3 times this.
    """
    V = config.vocab_size
    if name == "gpt2":
        d, L = config.n_embd, config.n_layer
        return L * (24 * d * d + 4 * length * d) + 2 * d * V
    if name == "lstm":
        H, E, L = config.hidden_size, config.embedding_size, config.num_hidden_layers
        return sum(8 * H * ((E if k == 0 else H) + H) for k in range(L)) + 2 * H * V
    if name == "dense_ssm":
        d = config.hidden_size
        return 2 * d * d + 2 * d * V
    if name == "mamba":
        d, L = config.hidden_size, config.num_hidden_layers
        e, n, r = config.intermediate_size, config.state_size, config.time_step_rank
        return L * 2 * (2 * d * e + e * (r + 2 * n) + r * e + e * d) + 2 * d * V
    raise ValueError(f"no FLOP count for model {name!r}; known: gpt2, lstm, dense_ssm, mamba")


def train_step_flops(name: str, config, batch: int, length: int) -> float:
    """FLOPs of one training step (forward, backward at twice the forward, no update)."""
    return 3 * flops_per_token(name, config, length) * batch * length
