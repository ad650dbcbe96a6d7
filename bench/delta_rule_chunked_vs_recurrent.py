"""The chunked delta rule against its step-by-step reference, in one run: a paper-preset
DeltaNet and Gated DeltaNet training step (forward, loss, backward, Adam) at T = 64 and
T = 256, batch 16, the same weights and batch under both kernels (``delta_rule_kernel``).

The reference (`naive.py`) stays in the model's folder, where the tests hold the chunked
kernel to it; only the timing is the benchmark's.
"""

from __future__ import annotations

import torch

from hf_induction.models import build_model

from .common import VOCAB, train_steps
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    out = {}
    for name in ("deltanet", "gated_deltanet"):
        for length in (64, 256):
            times = {}
            for kernel in ("chunked", "recurrent"):
                torch.manual_seed(0)
                model = build_model(name, VOCAB, "paper", delta_rule_kernel=kernel)
                times[kernel] = train_steps(model, 1 if options.quick else 3, batch=16,
                                            length=length)
                out[f"{name}_{kernel}_T{length}_step_s"] = times[kernel]
            out[f"{name}_chunked_vs_recurrent_T{length}"] = times["recurrent"] / times["chunked"]
    return out
