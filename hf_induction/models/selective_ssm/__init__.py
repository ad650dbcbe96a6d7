"""The selective SSM (Mamba-2's layer) in three settings of its state transition: eigenvalues
real in [0, 1] (`selective_ssm`, the control), real in [-1, 1] (`selective_ssm_neg`, Grazzi
et al.'s negative-eigenvalue Mamba) and complex (`selective_ssm_complex`, Mamba-3's
data-dependent rotations): configuration, model, the naive recurrence and the chunked kernel,
and their `SPECS`.

The specs load without torch; the classes load, and register with the Auto classes, on first
use.
"""

from ..spec import CpuBudget, ModelSpec


def flops_per_token(config, length: int) -> float:
    # Per layer the input projection (z, x, B, C, the time steps and the angles), the output
    # projection, the SwiGLU MLP, and the recurrence's state update B x^T and read-out h^T C
    # (N P multiply-adds each per head, recurrent form; the chunked form does about as many at
    # these lengths); the head. The convolution, rotations, gates and norms are elementwise.
    d, e, n = config.hidden_size, config.inner_size, config.state_size
    projections = d * (2 * e + 2 * n + config.num_heads + config.num_angles) + e * d
    mlp = 3 * d * config.intermediate_size
    per_layer = projections + mlp + 2 * e * n
    return config.num_hidden_layers * 2 * per_layer + 2 * d * config.vocab_size


# Paper: 6 blocks of width 256, the mixer twice as wide in heads of 64 with 32 state rows, the
# MLP sized so that the model has GPT-2's 5.00M parameters at vocabulary 9 (5.00M real and
# negative, 5.03M complex, whose angle projection adds 4,096 a block); tiny: 2 blocks of width
# 32, heads of 16, 8 state rows.
PRESETS = {
    "paper": {"num_hidden_layers": 6, "hidden_size": 256, "expand": 2, "head_dim": 64,
              "state_size": 32, "intermediate_size": 544},
    "tiny": {"num_hidden_layers": 2, "hidden_size": 32, "expand": 2, "head_dim": 16,
             "state_size": 8, "intermediate_size": 64},
}

# One run per rate on modadd acot_L5's whole pool, 3,000 steps, seed 10
# (results/rates_selective_ssm/), best validation loss at 3e-2 / 1e-2 / 3e-3 / 1e-3: real 2.3e-3,
# 2.8e-3, 1.1e-4, 1.9e-4; negative 3.2e-3, eps (step 1,000), eps (1,700), 2.1e-4; complex eps
# (1,200), eps (1,500), eps (1,700), 2.3e-4. So each setting's two best, for DeltaNet's 5,000
# steps.
SETTINGS = {
    "selective_ssm": ("real", (3e-3, 1e-3)),
    "selective_ssm_neg": ("negative", (1e-2, 3e-3)),
    "selective_ssm_complex": ("complex", (3e-2, 1e-2)),
}

_MODELING = "hf_induction.models.selective_ssm.modeling_selective_ssm"
SPECS = tuple(
    ModelSpec(
        name=name,
        config="hf_induction.models.selective_ssm.configuration_selective_ssm:SelectiveSSMConfig",
        presets={p: {**fields, "transition": transition} for p, fields in PRESETS.items()},
        flops_per_token=flops_per_token,
        cpu_budget=CpuBudget(lrs=lrs, max_steps=5000, eval_every=100),
        auto_classes={"AutoModel": f"{_MODELING}:SelectiveSSMModel",
                      "AutoModelForCausalLM": f"{_MODELING}:SelectiveSSMForCausalLM"},
    )
    for name, (transition, lrs) in SETTINGS.items()
)

__getattr__ = SPECS[0].exports(__name__, {
    "SelectiveSSMConfig": "configuration_selective_ssm",
    "SelectiveSSMCache": "modeling_selective_ssm",
    "SelectiveSSMForCausalLM": "modeling_selective_ssm",
    "SelectiveSSMModel": "modeling_selective_ssm",
    "naive_ssm": "naive", "chunk_ssm": "chunked",
})

__all__ = ["SPECS", "SelectiveSSMCache", "SelectiveSSMConfig", "SelectiveSSMForCausalLM",
           "SelectiveSSMModel", "chunk_ssm", "naive_ssm"]
