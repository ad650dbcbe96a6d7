"""Tiny and paper GPT-2 steps with GPT-2's "gelu_new" against the fused tanh kernel.

Interleaved rounds, best of each, so load on a shared machine hits both alike.
"""

import torch

from hf_induction.models import build_model

from .common import VOCAB, train_steps
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    quick = options.quick
    out = {}
    for preset, steps in (("tiny", 20 if quick else 50), ("paper", 1 if quick else 3)):
        best = {"gelu_new": float("inf"), "gelu_pytorch_tanh": float("inf")}
        models = {}
        for act in best:
            torch.manual_seed(0)
            models[act] = build_model("gpt2", VOCAB, preset, activation_function=act)
        for _ in range(3):
            for act, model in models.items():
                best[act] = min(best[act], train_steps(model, steps))
        out[f"gpt2_{preset}_gelu_new_step_s"] = best["gelu_new"]
        out[f"gpt2_{preset}_gelu_pytorch_tanh_step_s"] = best["gelu_pytorch_tanh"]
        out[f"gpt2_{preset}_fused_gelu_speedup"] = best["gelu_new"] / best["gelu_pytorch_tanh"]
    return out
