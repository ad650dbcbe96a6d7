"""Mamba-3 (Lahoti et al., arXiv 2603.15569) as its public layer builds it: the
exponential-trapezoidal rule, a complex state by data-dependent rotations, a data-dependent
decay, RMS-normed B and C with per-head biases and no convolution; SISO in its presets, MIMO a
config option (`mimo_rank`). Configuration, model, the naive recurrence and the chunked kernel,
and its `SPEC`.

The spec loads without torch; the classes load, and register with the Auto classes, on first
use.
"""

from ..spec import CpuBudget, ModelSpec


def flops_per_token(config, length: int) -> float:
    # Per layer the input projection (z, x, the R B's and C's, the time steps, decay rates,
    # trapezoid weights and angles), the output projection, the SwiGLU MLP, and the
    # recurrence's R state updates B x^T and R read-outs h^T C (N P multiply-adds each per head:
    # the chunked form folds the trapezoid's second write into the first); the head. Norms,
    # rotations, gates and the MIMO weights are elementwise.
    d, e, n, h = config.hidden_size, config.inner_size, config.state_size, config.num_heads
    r = config.mimo_rank
    projections = d * (2 * e + 2 * r * n + 3 * h + config.num_angles) + e * d
    mlp = 3 * d * config.intermediate_size
    per_layer = projections + mlp + 2 * r * e * n
    return config.num_hidden_layers * 2 * per_layer + 2 * d * config.vocab_size


# Paper: 6 blocks of width 256, the mixer twice as wide in heads of 64 with 32 state rows (8
# turning pairs), the MLP sized so that the model has about GPT-2's 5.00M parameters at
# vocabulary 9 (5,006,560; 536 would give 4.99M); tiny: 2 blocks of width 32, heads of 16, 8
# state rows (27,408 parameters), as the selective SSM's.
PRESETS = {
    "paper": {"num_hidden_layers": 6, "hidden_size": 256, "expand": 2, "head_dim": 64,
              "state_size": 32, "intermediate_size": 540},
    "tiny": {"num_hidden_layers": 2, "hidden_size": 32, "expand": 2, "head_dim": 16,
             "state_size": 8, "intermediate_size": 64},
}

_MODELING = "hf_induction.models.mamba3.modeling_mamba3"
SPEC = ModelSpec(
    name="mamba3",
    config="hf_induction.models.mamba3.configuration_mamba3:Mamba3Config",
    presets=PRESETS,
    flops_per_token=flops_per_token,
    # One run per rate on modadd acot_L5's whole pool, 3,000 steps, seed 10
    # (results/rates_mamba3/), best validation loss at 3e-2 / 1e-2 / 3e-3 / 1e-3: 1.1e-2,
    # 6.0e-3, 6.6e-3, 2.9e-4 (1e-3 still falling at its last evaluation; none reached epsilon).
    # So the two best, for DeltaNet's 5,000 steps.
    cpu_budget=CpuBudget(lrs=(1e-2, 1e-3), max_steps=5000, eval_every=100),
    auto_classes={"AutoModel": f"{_MODELING}:Mamba3Model",
                  "AutoModelForCausalLM": f"{_MODELING}:Mamba3ForCausalLM"},
)

__getattr__ = SPEC.exports(__name__, {
    "Mamba3Config": "configuration_mamba3", "Mamba3Cache": "modeling_mamba3",
    "Mamba3ForCausalLM": "modeling_mamba3", "Mamba3Model": "modeling_mamba3",
    "naive_mamba3": "naive", "chunk_mamba3": "chunked",
})

__all__ = ["SPEC", "Mamba3Cache", "Mamba3Config", "Mamba3ForCausalLM", "Mamba3Model",
           "chunk_mamba3", "naive_mamba3"]
