"""Model sizes: `paper` (the paper's models) and `tiny` (CPU tests and demos).

Values are config keyword arguments; `build_model` adds the vocabulary and special tokens.
"""

# GPT-2's default activation "gelu_new" is 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
# spelled out in five elementwise ops; "gelu_pytorch_tanh" is the same formula in one fused
# kernel (equal to float64 rounding: tests/models), and a fifth of a tiny GPT-2's CPU step.
GELU_TANH = {"activation_function": "gelu_pytorch_tanh"}

PRESETS: dict[str, dict[str, dict]] = {
    "paper": {
        # 6 layers, d_model 256, MLP x4 (n_inner=None), 8 heads (the paper does not say: ours);
        # everything else GPT-2's defaults, including 1024 positions and dropout 0.1. GPT-2's
        # "gelu_new" is computed by the fused kernel of the same tanh formula (GELU_TANH).
        "gpt2": {"n_layer": 6, "n_embd": 256, "n_head": 8, **GELU_TANH},
        "lstm": {"num_hidden_layers": 1, "hidden_size": 768},
        "dense_ssm": {"num_hidden_layers": 1, "hidden_size": 256},
        # Ours: same width as the GPT-2 preset and two Mamba blocks per transformer layer, the
        # usual pairing (a Mamba block has about 6 d^2 weights, a transformer layer 12 d^2), so
        # the two have about the same number of parameters (5.3M vs 5.0M at vocabulary 9).
        "mamba": {"num_hidden_layers": 12, "hidden_size": 256, "state_size": 16, "expand": 2},
        # The second study's from-scratch transformers: 4 layers, 4 heads, d 256, MLP x4.
        "gpt2_offset": {"n_layer": 4, "n_embd": 256, "n_head": 4, **GELU_TANH},
        "rope": {"num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4,
                 "num_key_value_heads": 4, "intermediate_size": 1024,
                 "max_position_embeddings": 1024},
    },
    "tiny": {
        "gpt2": {"n_layer": 2, "n_embd": 32, "n_head": 4, "n_positions": 128, **GELU_TANH},
        "lstm": {"num_hidden_layers": 1, "hidden_size": 32},
        "dense_ssm": {"num_hidden_layers": 1, "hidden_size": 16},
        "mamba": {"num_hidden_layers": 2, "hidden_size": 32, "state_size": 8, "expand": 2},
        "gpt2_offset": {"n_layer": 2, "n_embd": 32, "n_head": 4, "n_positions": 128,
                        **GELU_TANH},
        "rope": {"num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 4,
                 "num_key_value_heads": 4, "intermediate_size": 128,
                 "max_position_embeddings": 1024},
    },
}
