"""Dense-SSM (bilinear RNN): configuration, model, the naive reference, and its `SPEC`.

`SPEC` loads without torch; the classes load, and register with the Auto classes, on first
use.
"""

from ..spec import CpuBudget, ModelSpec


def flops_per_token(config, length: int) -> float:
    # The useful 2 d^2 of A(x_t) h (whatever the kernel: `all_tokens` does V times that,
    # `grouped` about twice it with padding) and the head.
    d = config.hidden_size
    return 2 * d * d + 2 * d * config.vocab_size


_MODELING = "hf_induction.models.dense_ssm.modeling_dense_ssm"
SPEC = ModelSpec(
    name="dense_ssm",
    config="hf_induction.models.dense_ssm.configuration_dense_ssm:DenseSSMConfig",
    presets={
        "paper": {"num_hidden_layers": 1, "hidden_size": 256},
        "tiny": {"num_hidden_layers": 1, "hidden_size": 16},
    },
    flops_per_token=flops_per_token,
    # The tiny Dense-SSM learns Z_5 words of length 3-4 in a few hundred steps at these
    # learning rates (lower ones need more than 1,500 steps to reach 1e-4); the cpu preset's
    # own values are these.
    cpu_budget=CpuBudget(lrs=(3e-2, 1e-2), max_steps=1500, eval_every=50),
    auto_classes={"AutoModel": f"{_MODELING}:DenseSSMModel",
                  "AutoModelForCausalLM": f"{_MODELING}:DenseSSMForCausalLM"},
)

__getattr__ = SPEC.exports(__name__, {
    "DenseSSMConfig": "configuration_dense_ssm", "DenseSSMCache": "modeling_dense_ssm",
    "DenseSSMForCausalLM": "modeling_dense_ssm", "DenseSSMModel": "modeling_dense_ssm",
})

__all__ = ["SPEC", "DenseSSMCache", "DenseSSMConfig", "DenseSSMForCausalLM", "DenseSSMModel"]
