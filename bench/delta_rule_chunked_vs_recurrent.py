"""The chunked kernels against their step-by-step references, in one run: a paper-preset
DeltaNet, Gated DeltaNet, RWKV-7 and complex selective SSM training step (forward, loss,
backward, Adam) at T = 64 and T = 256, batch 16, the same weights and batch under both
kernels (each model's kernel field).

The references (`naive.py`) stay in the models' folders, where the tests hold the chunked
kernels to them; only the timing is the benchmark's.
"""

from __future__ import annotations

import torch

from hf_induction.models import build_model

from .common import VOCAB, train_steps
from .options import BenchOptions

# Each model with the config field that picks its kernel ("chunked" or "recurrent").
MODELS = (("deltanet", "delta_rule_kernel"), ("gated_deltanet", "delta_rule_kernel"),
          ("rwkv7", "rwkv_kernel"), ("selective_ssm_complex", "ssm_kernel"))


def run(options: BenchOptions) -> dict:
    out = {}
    # --cells PART ...: only the models whose name holds a part.
    for name, field in MODELS:
        if options.cells is not None and not any(part in name for part in options.cells):
            continue
        for length in (64, 256):
            times = {}
            for kernel in ("chunked", "recurrent"):
                torch.manual_seed(0)
                model = build_model(name, VOCAB, "paper", **{field: kernel})
                times[kernel] = train_steps(model, 1 if options.quick else 3, batch=16,
                                            length=length)
                out[f"{name}_{kernel}_T{length}_step_s"] = times[kernel]
            out[f"{name}_chunked_vs_recurrent_T{length}"] = times["recurrent"] / times["chunked"]
    return out
