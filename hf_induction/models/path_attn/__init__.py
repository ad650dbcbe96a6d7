"""PaTH attention (Yang et al., arXiv 2505.16381): softmax attention whose positions are
products of data-dependent Householder matrices. Configuration, model, the naive reference
(every product formed) and the chunked kernel (the products taken by the delta rule), and its
`SPEC`.

`SPEC` loads without torch; the classes load, and register with the Auto classes, on first
use.
"""

from ..spec import CpuBudget, ModelSpec


def flops_per_token(config, length: int) -> float:
    # Per layer: Q, K, V, O, the map to the Householder directions (through its rank, or full),
    # the step sizes, the SwiGLU MLP; QK^T and AV at full length T, as GPT-2's count has it
    # (4 T d); and the delta rule carrying T keys per token (recall, update and read of a
    # head_dim x T state per head: 6 T d; the chunked form does about as many). Then the head.
    # The convolution, norms and softmax are elementwise.
    d, V, r = config.hidden_size, config.vocab_size, config.w_low_rank_dim
    w_map = 2 * d * r if r is not None else d * d
    projections = 4 * d * d + w_map + d * config.num_heads + 3 * d * config.intermediate_size
    return config.num_hidden_layers * (2 * projections + 10 * length * d) + 2 * d * V


_MODELING = "hf_induction.models.path_attn.modeling_path_attn"
SPEC = ModelSpec(
    name="path_attn",
    config="hf_induction.models.path_attn.configuration_path_attn:PaTHAttnConfig",
    presets={
        # Paper: 6 blocks of width 256 in 4 heads of 64, fla's rank-32 map to w and width-3
        # convolution, the MLP sized so that the model has GPT-2's 5.00M parameters at
        # vocabulary 9 (5.01M); tiny: 2 blocks of width 32 in heads of 16, rank 8.
        "paper": {"num_hidden_layers": 6, "hidden_size": 256, "num_heads": 4,
                  "intermediate_size": 720},
        "tiny": {"num_hidden_layers": 2, "hidden_size": 32, "num_heads": 2,
                 "w_low_rank_dim": 8, "intermediate_size": 64},
    },
    flops_per_token=flops_per_token,
    # One run per rate on modadd acot_L5's whole pool, 3,000 steps, seed 10
    # (results/rates_path_attn/), best validation loss at 3e-2 / 1e-2 / 3e-3 / 1e-3: 1.4 (ending
    # at ln 5), 1.0e-2, 3.4e-3 (still falling), 6.0e-3; none reached epsilon. So the two best,
    # for DeltaNet's 5,000 steps.
    cpu_budget=CpuBudget(lrs=(3e-3, 1e-3), max_steps=5000, eval_every=100),
    auto_classes={"AutoModel": f"{_MODELING}:PaTHAttnModel",
                  "AutoModelForCausalLM": f"{_MODELING}:PaTHAttnForCausalLM"},
)

__getattr__ = SPEC.exports(__name__, {
    "PaTHAttnConfig": "configuration_path_attn", "PaTHAttnCache": "modeling_path_attn",
    "PaTHAttnForCausalLM": "modeling_path_attn", "PaTHAttnModel": "modeling_path_attn",
    "naive_path_attn": "naive", "chunk_path_attn": "chunked",
})

__all__ = ["SPEC", "PaTHAttnCache", "PaTHAttnConfig", "PaTHAttnForCausalLM", "PaTHAttnModel",
           "chunk_path_attn", "naive_path_attn"]
