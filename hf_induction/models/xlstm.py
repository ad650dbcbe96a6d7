"""xLSTM (mLSTM blocks), transformers' own classes with our presets: its `SPEC`."""

from .mamba import SPEC as MAMBA
from .spec import ModelSpec


def flops_per_token(config, length: int) -> float:
    # Per block the mLSTM layer's projections (q, k: qk outputs; v, output gate: v outputs;
    # input and forget gates: one per head; out: v d), the recurrence per head in recurrent
    # form (the update k v^T and the read-out q^T C: qk v / h multiply-adds each, and q.n: qk),
    # and the gated feed-forward (three matrices of d f); the head. Norms and gate
    # activations are elementwise and left out.
    d, L, h = config.hidden_size, config.num_hidden_layers, config.num_heads
    qk, v = int(d * config.qk_dim_factor), int(d * config.v_dim_factor)
    # The feed-forward width as transformers rounds it.
    m = config.ffn_round_up_to_multiple_of
    f = int((d * config.ffn_proj_factor + m - 1) // m * m)
    layer = d * (2 * qk + 2 * v + 2 * h) + v * d + 2 * qk * v // h + qk + 3 * d * f
    return L * 2 * layer + 2 * d * config.vocab_size


# What the presets share. transformers' defaults otherwise (the xLSTM 7B's): gates soft-capped
# at 15 and output logits at 30 (30 tanh(x / 30): a loss never needs logits that far apart at
# our vocabularies, but the logits are then not the head's output, and the config refuses to
# turn the cap off), feed-forward 2.667 d rounded up to a multiple of 64.
COMMON = {
    # The cache that carries the state between calls would be built on every training forward
    # too (transformers' xLSTM keeps it unless told not to), and its in-place update breaks
    # the backward of the chunkwise kernel: generate() then recomputes the prefix instead.
    "use_cache": False,
    # "inference" runs whole chunks in parallel and the remainder step by step, at any length
    # ("train" needs lengths divisible by chunk_size; "train_with_padding" cannot return the
    # final state generate() continues from).
    "mode": "inference",
    # transformers' own kernels compute in the model's dtype; the xlstm package's kernels, when
    # installed, would cast to this one (bfloat16 by default).
    "autocast_kernel_dtype": "float32",
}

SPEC = ModelSpec(
    name="xlstm",
    config="transformers:xLSTMConfig",
    presets={
        # Ours: GPT-2's 6 layers at d 256 as 6 mLSTM blocks (each an mLSTM layer and a gated
        # feed-forward, as a transformer layer is attention and an MLP), 4 heads, keys and
        # queries at half width as in the xLSTM 7B: 4,838,704 parameters vs GPT-2's 5,003,520
        # at vocabulary 9. A width times qk_dim_factor and v_dim_factor must be a multiple of
        # 64: transformers sizes the layer from the product and the cache from it rounded up.
        # chunk_size only picks how a row is cut between the parallel and the step kernel.
        "paper": {"num_hidden_layers": 6, "hidden_size": 256, "num_heads": 4,
                  "qk_dim_factor": 0.5, "v_dim_factor": 1.0, "chunk_size": 16, **COMMON},
        "tiny": {"num_hidden_layers": 2, "hidden_size": 64, "num_heads": 4,
                 "qk_dim_factor": 1.0, "v_dim_factor": 1.0, "chunk_size": 8, **COMMON},
    },
    flops_per_token=flops_per_token,
    # Provisional: Mamba's budget until the xLSTM's own is calibrated.
    cpu_budget=MAMBA.cpu_budget,
)
