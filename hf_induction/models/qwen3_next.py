"""Qwen3-Next's layers (transformers' Qwen3-Next classes) at our sizes: its `SPEC`.

Its linear layers are the gated delta rule with beta = sigmoid(.) in (0, 1), so each token's
transition a (I - beta k k^T), unit k and decay a in (0, 1], has eigenvalues in [0, 1]: the
setting today's LLMs ship, beside OLMo Hybrid's [-1, 1] (our ``hybrid``). Every fourth layer
is gated full attention (transformers' default ``layer_types``). The MLP is dense in every
layer (``mlp_only_layers``): the experts of the released model would add routing, not
recurrence, at a size a grid of small runs cannot use.
"""

from .hybrid import LINEAR_THEN_ATTENTION, gated_delta_flops, layers_flops
from .spec import CpuBudget, ModelSpec


def flops_per_token(config, length: int) -> float:
    # Linear layers as OLMo Hybrid's (`gated_delta_flops`); attention layers: Q and its gate
    # (2 x heads x head_dim), K and V (key/value heads), O, and QK^T, AV at full length T.
    d = config.hidden_size
    q = config.num_attention_heads * config.head_dim
    kv = config.num_key_value_heads * config.head_dim
    return layers_flops(config, gated_delta_flops(config), d * (2 * q + 2 * kv) + q * d,
                        4 * length * q)


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
    # Its own rates, at the transformers' steps: one run per rate on acot_L5's whole pool
    # (results/rates_qwen3_next): 3e-3 came nearest ε (7.2e-4 at 3,000 steps), then 1e-3.
    cpu_budget=CpuBudget(lrs=(3e-3, 1e-3), max_steps=5000, eval_every=100),
)
