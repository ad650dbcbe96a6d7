"""Kimi Linear (transformers' Kimi Linear classes) at our sizes: its `SPEC`.

Its linear layers are Kimi Delta Attention: the gated delta rule with a decay per channel
(a vector, as RWKV-7's, not Gated DeltaNet's one scalar per head) and beta = sigmoid(.) in
(0, 1), so each transition diag(a) (I - beta k k^T) has real eigenvalues in [0, 1]. Every
fourth layer is multi-head latent attention (MLA). The MLP is dense in every layer
(``mlp_layer_types``).
"""

from .gpt2 import TRANSFORMER_CPU_BUDGET
from .hybrid import LINEAR_THEN_ATTENTION, layers_flops
from .spec import ModelSpec


def flops_per_token(config, length: int) -> float:
    # KDA layers: q, k, v, the output projection (heads x head_dim wide), the two low-rank
    # maps of the forget gate and of the output gate (rank = head_dim), beta (one per head),
    # and the recurrence per head in recurrent form (read, rank-1 update, read-out: d_h^2
    # multiply-adds each). MLA layers: Q, the compressed key/value and its expansion, O, and
    # QK^T, AV at full length T. Both: a gated MLP of three matrices; and the head.
    d = config.hidden_size
    heads, d_h = config.linear_num_heads, config.linear_head_dim
    inner = heads * d_h
    kda = 4 * d * inner + 2 * (d * d_h + d_h * inner) + d * heads + 3 * heads * d_h * d_h
    h = config.num_attention_heads
    qk = config.qk_nope_head_dim + config.qk_rope_head_dim
    rank = config.kv_lora_rank
    mla = (d * h * qk + d * (rank + config.qk_rope_head_dim)
           + rank * h * (config.qk_nope_head_dim + config.v_head_dim) + h * config.v_head_dim * d)
    return layers_flops(config, kda, mla, 2 * length * h * (qk + config.v_head_dim))


# The hybrid's shape (4 layers, d 256, MLP 1024): KDA with 4 heads of 64; MLA with 4 heads,
# a key/value rank of 64 and query/key heads of 48 + 16 rotary channels, values of 64.
# 4,329,228 parameters at vocabulary 9 (GPT-2: 5,003,520).
_SHAPE = {
    "paper": {"num_hidden_layers": 4, "hidden_size": 256, "intermediate_size": 1024,
              "linear_num_heads": 4, "linear_head_dim": 64,
              "num_attention_heads": 4, "num_key_value_heads": 4, "kv_lora_rank": 64,
              "q_lora_rank": None, "qk_nope_head_dim": 48, "qk_rope_head_dim": 16,
              "v_head_dim": 64, "mlp_layer_types": ["dense"] * 4,
              "max_position_embeddings": 1024},
    "tiny": {"num_hidden_layers": 4, "hidden_size": 32, "intermediate_size": 128,
             "linear_num_heads": 2, "linear_head_dim": 16,
             "num_attention_heads": 2, "num_key_value_heads": 2, "kv_lora_rank": 16,
             "q_lora_rank": None, "qk_nope_head_dim": 8, "qk_rope_head_dim": 8,
             "v_head_dim": 16, "mlp_layer_types": ["dense"] * 4,
             "max_position_embeddings": 1024},
}

# An all-KDA stack builds and trains, but transformers 5.25's cache cannot size an attention
# mask without an attention layer, so ``generate()`` fails: not registered.
SPEC = ModelSpec(
    name="kimi_linear",
    config="transformers:KimiLinearConfig",
    presets={p: {**shape, "layer_types": LINEAR_THEN_ATTENTION} for p, shape in _SHAPE.items()},
    flops_per_token=flops_per_token,
    # Provisional: the transformers' budget until its own is calibrated.
    cpu_budget=TRANSFORMER_CPU_BUDGET,
)
