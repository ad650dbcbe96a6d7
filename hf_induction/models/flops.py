"""Analytic FLOPs of a model: what bench.py divides by and what cost estimates count."""

from __future__ import annotations


def _gpt2(config, length: int) -> float:
    d, L, V = config.n_embd, config.n_layer, config.vocab_size
    return L * (24 * d * d + 4 * length * d) + 2 * d * V


def _rope(config, length: int) -> float:
    # Q, K, V, O (key/value heads may be fewer), a gated MLP of three matrices, and attention.
    d, L, V = config.hidden_size, config.num_hidden_layers, config.vocab_size
    kv = d * config.num_key_value_heads // config.num_attention_heads
    return L * (2 * (2 * d * d + 2 * d * kv + 3 * d * config.intermediate_size)
                + 4 * length * d) + 2 * d * V


def _lstm(config, length: int) -> float:
    H, E, L = config.hidden_size, config.embedding_size, config.num_hidden_layers
    return sum(8 * H * ((E if k == 0 else H) + H) for k in range(L)) + 2 * H * config.vocab_size


def _dense_ssm(config, length: int) -> float:
    d = config.hidden_size
    return 2 * d * d + 2 * d * config.vocab_size


def _mamba(config, length: int) -> float:
    d, L = config.hidden_size, config.num_hidden_layers
    e, n, r = config.intermediate_size, config.state_size, config.time_step_rank
    return L * 2 * (2 * d * e + e * (r + 2 * n) + r * e + e * d) + 2 * d * config.vocab_size


# model name -> forward FLOPs per token (config, sequence length).
FLOP_COUNTS = {"gpt2": _gpt2, "gpt2_offset": _gpt2, "rope": _rope, "lstm": _lstm,
               "dense_ssm": _dense_ssm, "mamba": _mamba}


def flops_per_token(name: str, config, length: int) -> float:
    """Forward FLOPs per token at sequence length ``length``: matrix products, 2 per multiply-add.

    GPT-2: 24 d^2 per layer (QKV, projection, MLP x4) plus 4 T d for QK^T and AV at full
    length T (no causal halving), and the head. RoPE decoder (Llama): its four projections, a
    gated MLP and the same attention. LSTM: 8 H (E + H) per layer and the head.
    Dense-SSM: the useful 2 d^2 of A(x_t) h (whatever the kernel: `all_tokens` does V times
    that, `grouped` about twice it with padding) and the head.
    Mamba: in/out projections, x_proj and dt_proj (2 x (2 d e + e (r + 2 n) + r e + e d)
    with e = expand d, r = dt_rank, n = state_size) per layer, and the head; the scan and
    the convolution are elementwise and left out. A training step is about 3 times this.
    """
    if name not in FLOP_COUNTS:
        raise ValueError(f"no FLOP count for model {name!r}; known: {', '.join(FLOP_COUNTS)}")
    return FLOP_COUNTS[name](config, length)


def train_step_flops(name: str, config, batch: int, length: int) -> float:
    """FLOPs of one training step (forward, backward at twice the forward, no update)."""
    return 3 * flops_per_token(name, config, length) * batch * length
