"""Mamba, transformers' own classes with our presets: its `SPEC`."""

from .spec import CpuBudget, ModelSpec


def flops_per_token(config, length: int) -> float:
    # In/out projections, x_proj and dt_proj (2 x (2 d e + e (r + 2 n) + r e + e d) with
    # e = expand d, r = dt_rank, n = state_size) per layer, and the head; the scan and the
    # convolution are elementwise and left out.
    d, L = config.hidden_size, config.num_hidden_layers
    e, n, r = config.intermediate_size, config.state_size, config.time_step_rank
    return L * 2 * (2 * d * e + e * (r + 2 * n) + r * e + e * d) + 2 * d * config.vocab_size


SPEC = ModelSpec(
    name="mamba",
    config="transformers:MambaConfig",
    presets={
        # Ours: same width as the GPT-2 preset and two Mamba blocks per transformer layer,
        # the usual pairing (a Mamba block has about 6 d^2 weights, a transformer layer
        # 12 d^2), so the two have about the same number of parameters (5.3M vs 5.0M at
        # vocabulary 9).
        "paper": {"num_hidden_layers": 12, "hidden_size": 256, "state_size": 16, "expand": 2},
        "tiny": {"num_hidden_layers": 2, "hidden_size": 32, "state_size": 8, "expand": 2},
    },
    flops_per_token=flops_per_token,
    # The tiny Mamba learned acot_L3_m2 at 1e-2 in 2,600 steps (3e-2 diverged, 3e-3 and
    # 1e-3 were still near 2).
    cpu_budget=CpuBudget(lrs=(1e-2, 3e-3), max_steps=3000, eval_every=100),
)
