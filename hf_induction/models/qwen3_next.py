"""Qwen3-Next's layers (transformers' Qwen3-Next classes) at our sizes: its `SPEC`.

Its linear layers are the gated delta rule with beta = sigmoid(.) in (0, 1), so each token's
transition a (I - beta k k^T), unit k and decay a in (0, 1], has eigenvalues in [0, 1]: the
setting today's LLMs ship, beside OLMo Hybrid's [-1, 1] (our ``hybrid``). Every fourth layer
is gated full attention (transformers' default ``layer_types``). The MLP is dense in every
layer (``mlp_only_layers``): the experts of the released model would add routing, not
recurrence, at a size a grid of small runs cannot use.
"""

from .gpt2 import TRANSFORMER_CPU_BUDGET
from .hybrid import LINEAR_THEN_ATTENTION, layers_flops
from .spec import ModelSpec


def flops_per_token(config, length: int) -> float:
    # Linear layers: q, k (key width), v and the output gate z (value width), b and a (one per
    # value head), the output projection, and the recurrence per value head in recurrent form
    # (the read k^T S, the rank-1 update and the read-out q^T S: d_k d_v multiply-adds each).
    # Attention layers: Q and its gate (2 x heads x head_dim), K and V (key/value heads), O,
    # and QK^T, AV at full length T, as GPT-2's count has it. Both: a gated MLP of three
    # matrices; and the head. The convolution, the gates and the norms are elementwise.
    d = config.hidden_size
    heads_v, d_k, d_v = (config.linear_num_value_heads, config.linear_key_head_dim,
                         config.linear_value_head_dim)
    keys, values = config.linear_num_key_heads * d_k, heads_v * d_v
    delta = d * (2 * keys + 2 * values + 2 * heads_v) + values * d + 3 * heads_v * d_k * d_v
    q = config.num_attention_heads * config.head_dim
    kv = config.num_key_value_heads * config.head_dim
    return layers_flops(config, delta, d * (2 * q + 2 * kv) + q * d, 4 * length * q)


# The hybrid's shape (4 layers, d 256, MLP 1024, the second study's transformers): Qwen3-Next's
# head layout scaled down, twice as many value heads as key heads (2 and 4, 64 wide), and
# attention of 4 query heads over 2 key/value heads of 64. 4,213,848 parameters at vocabulary
# 9 (GPT-2: 5,003,520).
_SHAPE = {
    "paper": {"num_hidden_layers": 4, "hidden_size": 256, "intermediate_size": 1024,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
              "linear_num_key_heads": 2, "linear_num_value_heads": 4,
              "linear_key_head_dim": 64, "linear_value_head_dim": 64,
              "mlp_only_layers": [0, 1, 2, 3], "max_position_embeddings": 1024},
    "tiny": {"num_hidden_layers": 4, "hidden_size": 32, "intermediate_size": 128,
             "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
             "linear_num_key_heads": 1, "linear_num_value_heads": 2,
             "linear_key_head_dim": 12, "linear_value_head_dim": 12,
             "mlp_only_layers": [0, 1, 2, 3], "max_position_embeddings": 1024},
}

# An all-linear stack builds and trains, but transformers 5.25's cache cannot size an attention
# mask without an attention layer, so ``generate()`` fails: not registered.
SPEC = ModelSpec(
    name="qwen3_next",
    config="transformers:Qwen3NextConfig",
    presets={p: {**shape, "layer_types": LINEAR_THEN_ATTENTION} for p, shape in _SHAPE.items()},
    flops_per_token=flops_per_token,
    # Provisional: the transformers' budget until its own is calibrated.
    cpu_budget=TRANSFORMER_CPU_BUDGET,
)
