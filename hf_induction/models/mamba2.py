"""Mamba-2, transformers' own classes with our presets: its `SPEC`."""

from .mamba import SPEC as MAMBA
from .spec import ModelSpec


def flops_per_token(config, length: int) -> float:
    # Per layer the input projection (z, x, B, C and dt: 2 e + 2 g n + h outputs, e = expand d,
    # g groups, h heads, n = state_size), the output projection (e d), and the recurrence's
    # state update x B^T and read-out S C (e n multiply-adds each, recurrent form); the head.
    # The convolution, the gates and the norms are elementwise and left out.
    d, L = config.hidden_size, config.num_hidden_layers
    e, n = config.expand * d, config.state_size
    projections = d * (2 * e + 2 * config.n_groups * n + config.num_heads) + e * d
    return L * 2 * (projections + 2 * e * n) + 2 * d * config.vocab_size


SPEC = ModelSpec(
    name="mamba2",
    config="transformers:Mamba2Config",
    presets={
        # Ours: Mamba's pairing (same width as the GPT-2 preset, two blocks per transformer
        # layer) with Mamba-2's heads of 64 channels and one B/C group; state 32 brings the
        # parameter count to GPT-2's (4,986,400 vs 5,003,520 at vocabulary 9). The head is
        # tied to the embedding, as Mamba's is.
        # chunk_size only picks how the scan is cut (a row is padded to a multiple of it):
        # transformers' default 256 pads a 24-token row to 256, and a tiny CPU step takes
        # 1.3 s instead of 0.05 s (batch 32).
        "paper": {"num_hidden_layers": 12, "hidden_size": 256, "expand": 2, "head_dim": 64,
                  "num_heads": 8, "n_groups": 1, "state_size": 32, "chunk_size": 64,
                  "tie_word_embeddings": True},
        "tiny": {"num_hidden_layers": 2, "hidden_size": 32, "expand": 2, "head_dim": 16,
                 "num_heads": 4, "n_groups": 1, "state_size": 16, "chunk_size": 16,
                 "tie_word_embeddings": True},
    },
    flops_per_token=flops_per_token,
    # Provisional: Mamba's budget until Mamba-2's own is calibrated.
    cpu_budget=MAMBA.cpu_budget,
)
