"""GPT-2, transformers' own classes with our presets: its `SPEC`."""

from .spec import CpuBudget, ModelSpec

# GPT-2's default activation "gelu_new" is 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
# spelled out in five elementwise ops; "gelu_pytorch_tanh" is the same formula in one fused
# kernel (equal to float64 rounding: tests/models), and a fifth of a tiny GPT-2's CPU step.
GELU_TANH = {"activation_function": "gelu_pytorch_tanh"}

# GPT-2 leaves its loss plateaus at lr 1e-3 and 3e-4 within 5,000 steps (it learned cot_L5
# with N* = 49 there: docs/results.md); on acot_L3_m2's 7 words lr 1e-3 came closest
# (1.3e-4 at 3,000 steps; 1e-2 and 3e-3 no lower than 1e-2). The other transformers (offset
# GPT-2, RoPE) train at the same budget.
TRANSFORMER_CPU_BUDGET = CpuBudget(lrs=(1e-3, 3e-4), max_steps=5000, eval_every=100)


def flops_per_token(config, length: int) -> float:
    # 24 d^2 per layer (QKV, projection, MLP x4) plus 4 T d for QK^T and AV at full length T
    # (no causal halving), and the head.
    d, L, V = config.n_embd, config.n_layer, config.vocab_size
    return L * (24 * d * d + 4 * length * d) + 2 * d * V


SPEC = ModelSpec(
    name="gpt2",
    config="transformers:GPT2Config",
    presets={
        # 6 layers, d_model 256, MLP x4 (n_inner=None), 8 heads (the paper does not say:
        # ours); everything else GPT-2's defaults, including 1024 positions and dropout 0.1.
        # GPT-2's "gelu_new" is computed by the fused kernel of the same tanh formula.
        "paper": {"n_layer": 6, "n_embd": 256, "n_head": 8, **GELU_TANH},
        "tiny": {"n_layer": 2, "n_embd": 32, "n_head": 4, "n_positions": 128, **GELU_TANH},
    },
    flops_per_token=flops_per_token,
    cpu_budget=TRANSFORMER_CPU_BUDGET,
)
