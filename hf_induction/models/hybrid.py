"""A hybrid of gated delta-rule layers and attention (transformers' OLMo Hybrid classes): its
`SPEC`.

Its delta-rule layers allow negative eigenvalues (``linear_allow_neg_eigval``: beta in [0, 2],
so each transition a (I - beta k k^T), with unit k and a decay a in (0, 1], has eigenvalues in
[-1, 1]), and every fourth layer is full attention with rotary positions (transformers' default
``layer_types``: layer i is attention when i % 4 == 3).
"""

from .gpt2 import TRANSFORMER_CPU_BUDGET
from .spec import ModelSpec

# Three linear layers, then attention: transformers' default pattern for OLMo Hybrid,
# Qwen3-Next and Kimi Linear (layer i is attention when i % 4 == 3), stated for the latter two.
LINEAR_THEN_ATTENTION = ["linear_attention"] * 3 + ["full_attention"]


def layers_flops(config, linear: float, attention: float, attention_span: float) -> float:
    """A stack of linear-attention and attention layers (``config.layer_types``), each with a
    gated MLP of three matrices, and the head: ``linear`` and ``attention`` are a layer's
    mixer multiply-adds per token, ``attention_span`` what QK^T and AV add per token of the
    row (full length, as GPT-2's count has it)."""
    d = config.hidden_size
    mlp = 3 * d * config.intermediate_size
    total = sum(2 * (linear + mlp) if kind == "linear_attention"
                else 2 * (attention + mlp) + attention_span for kind in config.layer_types)
    return total + 2 * d * config.vocab_size


def gated_delta_flops(config) -> float:
    """A gated delta-rule layer's multiply-adds per token, in the fields OLMo Hybrid and
    Qwen3-Next share: q, k (key width), v and the output gate (value width), a and b (one per
    value head), the output projection, and the recurrence per value head in recurrent form
    (the read k^T S, the rank-1 update and the read-out q^T S: d_k d_v each). The
    convolution, the gates and the norms are elementwise and left out."""
    d = config.hidden_size
    heads_v, d_k, d_v = (config.linear_num_value_heads, config.linear_key_head_dim,
                         config.linear_value_head_dim)
    keys, values = config.linear_num_key_heads * d_k, heads_v * d_v
    return d * (2 * keys + 2 * values + 2 * heads_v) + values * d + 3 * heads_v * d_k * d_v


def flops_per_token(config, length: int) -> float:
    # Delta-rule layers (`gated_delta_flops`); attention layers: Q, K, V, O (key/value heads
    # may be fewer) and QK^T, AV at full length T, as GPT-2's count has it.
    d = config.hidden_size
    kv = d * config.num_key_value_heads // config.num_attention_heads
    return layers_flops(config, gated_delta_flops(config), 2 * d * d + 2 * d * kv,
                        4 * length * d)


SPEC = ModelSpec(
    name="hybrid",
    config="transformers:OlmoHybridConfig",
    presets={
        # The second study's shape (4 layers, 4 heads, d 256, MLP 1024, as the rope preset):
        # three delta-rule layers, then attention. Delta-rule heads at transformers' default
        # widths (keys 0.75 d / heads, values twice that). 4,610,616 parameters vs GPT-2's
        # 5,003,520 at vocabulary 9.
        "paper": {"num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4,
                  "intermediate_size": 1024, "max_position_embeddings": 1024},
        # Two delta-rule heads (keys 12 wide, values 24): transformers' chunked kernel pads a
        # row to 64 positions and works head by head, and four heads of 6 made a CPU step
        # 1.5 times slower for the same parameters.
        "tiny": {"num_hidden_layers": 4, "hidden_size": 32, "num_attention_heads": 4,
                 "linear_num_key_heads": 2, "linear_num_value_heads": 2,
                 "intermediate_size": 128, "max_position_embeddings": 1024},
    },
    flops_per_token=flops_per_token,
    # Provisional: the transformers' budget until the hybrid's own is calibrated.
    cpu_budget=TRANSFORMER_CPU_BUDGET,
)
