"""A decoder with rotary positions (transformers' Llama classes), the second study's: its
`SPEC`."""

from .gpt2 import TRANSFORMER_CPU_BUDGET
from .spec import ModelSpec


def flops_per_token(config, length: int) -> float:
    # Q, K, V, O (key/value heads may be fewer), a gated MLP of three matrices, and attention
    # at full length T, as GPT-2's count has it.
    d, L, V = config.hidden_size, config.num_hidden_layers, config.vocab_size
    kv = d * config.num_key_value_heads // config.num_attention_heads
    return L * (2 * (2 * d * d + 2 * d * kv + 3 * d * config.intermediate_size)
                + 4 * length * d) + 2 * d * V


SPEC = ModelSpec(
    name="rope",
    config="transformers:LlamaConfig",
    presets={
        # The second study's from-scratch transformers: 4 layers, 4 heads, d 256, MLP x4.
        "paper": {"num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4,
                  "num_key_value_heads": 4, "intermediate_size": 1024,
                  "max_position_embeddings": 1024},
        "tiny": {"num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 4,
                 "num_key_value_heads": 4, "intermediate_size": 128,
                 "max_position_embeddings": 1024},
    },
    flops_per_token=flops_per_token,
    cpu_budget=TRANSFORMER_CPU_BUDGET,
)
