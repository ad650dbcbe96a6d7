"""RWKV-7 "Goose" (Peng et al., arXiv 2503.14456): configuration, model, the naive recurrence
and the prefix-scan kernel, and its `SPEC`.

`SPEC` loads without torch; the classes load, and register with the Auto classes, on first
use.
"""

from ..spec import CpuBudget, ModelSpec


def flops_per_token(config, length: int) -> float:
    # Per layer: the r, k, v, o projections, the four low-rank maps, the channel mix's two
    # matrices, and the recurrence's three d_k x d_v products per head (removal, write, read;
    # the chunked form does about as many); then the head. Token shifts and norms are elementwise.
    d, inner = config.hidden_size, config.intermediate_size
    ranks = (config.decay_low_rank_dim + config.a_low_rank_dim + config.v_low_rank_dim
             + config.gate_low_rank_dim)
    memory = 3 * config.num_heads * config.head_dim * config.head_dim
    per_layer = 4 * d * d + 2 * d * ranks + 2 * d * inner + memory
    return config.num_hidden_layers * 2 * per_layer + 2 * d * config.vocab_size


_MODELING = "hf_induction.models.rwkv7.modeling_rwkv7"
SPEC = ModelSpec(
    name="rwkv7",
    config="hf_induction.models.rwkv7.configuration_rwkv7:RWKV7Config",
    presets={
        # Paper: 6 blocks of width 256 in heads of 64, as the paper's GPT-2, the channel mix
        # narrowed so that the parameters match GPT-2's 5.00M at vocabulary 9; tiny: 2 blocks
        # of width 32 in heads of 16 with rank-8 maps, as the tiny delta-rule models.
        "paper": {"num_hidden_layers": 6, "hidden_size": 256, "head_dim": 64,
                  "intermediate_size": 960},
        "tiny": {"num_hidden_layers": 2, "hidden_size": 32, "head_dim": 16,
                 "intermediate_size": 64, "decay_low_rank_dim": 8, "a_low_rank_dim": 8,
                 "v_low_rank_dim": 8, "gate_low_rank_dim": 8},
    },
    flops_per_token=flops_per_token,
    # One run per rate on modadd acot_L5's whole pool, 3,000 steps, seed 10 (results/rates_rwkv7/):
    # best validation loss 6.3e-5 (epsilon at step 1,900) at 3e-2, 1.9e-3 at 1e-2, 4.2e-3 at 3e-3,
    # 1.0e-2 at 1e-3. So the two best, as the Dense-SSM's and the LSTM's, for DeltaNet's steps.
    cpu_budget=CpuBudget(lrs=(3e-2, 1e-2), max_steps=5000, eval_every=100),
    auto_classes={"AutoModel": f"{_MODELING}:RWKV7Model",
                  "AutoModelForCausalLM": f"{_MODELING}:RWKV7ForCausalLM"},
)

__getattr__ = SPEC.exports(__name__, {
    "RWKV7Config": "configuration_rwkv7", "RWKV7Cache": "modeling_rwkv7",
    "RWKV7ForCausalLM": "modeling_rwkv7", "RWKV7Model": "modeling_rwkv7",
    "naive_rwkv7": "naive", "chunk_rwkv7": "chunked",
})

__all__ = ["SPEC", "RWKV7Cache", "RWKV7Config", "RWKV7ForCausalLM", "RWKV7Model", "chunk_rwkv7",
           "naive_rwkv7"]
