"""PD-SSM (arXiv 2509.22284, NeurIPS 2025): a state-space model whose transition is a column
one-hot matrix times a complex diagonal, so that one layer can follow any automaton:
configuration, model, the naive recurrence and the scan kernel, and its `SPEC`.

`SPEC` loads without torch; the classes load, and register with the Auto classes, on first
use.
"""

from ..spec import CpuBudget, ModelSpec


def flops_per_token(config, length: int) -> float:
    # Per layer the selector, the mixed score matrix (K N^2 multiply-adds: both kernels form
    # it), the magnitude and phase MLPs, the complex read-in (two real N x d maps), the
    # read-out of [Re x, Im x], the GELU MLP; the head. The transition itself is a gather and
    # N complex products (the dense recurrence's N^2 is the slow reference's alone); softmaxes,
    # norms and gates are elementwise.
    d, N, K = config.hidden_size, config.state_size, config.dictionary_size
    diagonal = 2 * (d * config.diagonal_size + config.diagonal_size * N)
    per_layer = (d * K + K * N * N + diagonal + 2 * N * d + 2 * N * d
                 + 2 * d * config.intermediate_size)
    return config.num_hidden_layers * 2 * per_layer + 2 * d * config.vocab_size


# Paper: 6 blocks of width 256, as the paper's GPT-2 and the selective SSM, each with 128
# complex states and 8 score matrices (the reference's state-tracking layer), the MLP sized so
# that the model has GPT-2's 5.00M parameters at vocabulary 9; tiny: 2 blocks of width 32 with
# 16 states.
PRESETS = {
    "paper": {"num_hidden_layers": 6, "hidden_size": 256, "state_size": 128,
              "dictionary_size": 8, "intermediate_size": 720},
    "tiny": {"num_hidden_layers": 2, "hidden_size": 32, "state_size": 16,
             "dictionary_size": 8, "intermediate_size": 64},
}

_MODELING = "hf_induction.models.pd_ssm.modeling_pd_ssm"
SPEC = ModelSpec(
    name="pd_ssm",
    config="hf_induction.models.pd_ssm.configuration_pd_ssm:PDSSMConfig",
    presets=PRESETS,
    flops_per_token=flops_per_token,
    # One run per rate on modadd acot_L5's whole pool, 3,000 steps, seed 10
    # (results/rates_pd_ssm/): every rate reached epsilon, 3e-2 at step 400 (best validation
    # loss 5.7e-5), 1e-2 at 500 (7.9e-5), 3e-3 at 1,500 (8.5e-5), 1e-3 at 2,800 (9.8e-5). So the
    # two fastest, for DeltaNet's 5,000 steps.
    cpu_budget=CpuBudget(lrs=(3e-2, 1e-2), max_steps=5000, eval_every=100),
    auto_classes={"AutoModel": f"{_MODELING}:PDSSMModel",
                  "AutoModelForCausalLM": f"{_MODELING}:PDSSMForCausalLM"},
)

__getattr__ = SPEC.exports(__name__, {
    "PDSSMConfig": "configuration_pd_ssm", "PDSSMCache": "modeling_pd_ssm",
    "PDSSMForCausalLM": "modeling_pd_ssm", "PDSSMModel": "modeling_pd_ssm",
    "naive_pd_ssm": "naive", "scan_pd_ssm": "scan",
})

__all__ = ["SPEC", "PDSSMCache", "PDSSMConfig", "PDSSMForCausalLM", "PDSSMModel", "naive_pd_ssm",
           "scan_pd_ssm"]
