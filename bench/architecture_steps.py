"""Every registered model's training step beside GPT-2's, at both presets: batch 64, length
20 (the paper's cells), one Adam step, in one run."""

from __future__ import annotations

import torch

from hf_induction.models import MODEL_NAMES, build_model

from .common import PAPER_LENGTH, VOCAB, train_steps
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    # --cells PART ...: only the models whose name holds a part, beside GPT-2.
    names = [n for n in MODEL_NAMES if options.cells is None or n == "gpt2"
             or any(part in n for part in options.cells)]
    out = {}
    for preset in ("tiny", "paper"):
        for name in names:
            torch.manual_seed(0)
            model = build_model(name, VOCAB, preset)
            # A pure-PyTorch Mamba at the paper preset takes ~15 s a step on the CPU: one.
            slow = preset == "paper" and name == "mamba"
            seconds = train_steps(model, 1 if options.quick or slow else 3,
                                  length=PAPER_LENGTH, warm_up=not slow)
            out[f"{name}_{preset}_step_s"] = seconds
            out[f"{name}_{preset}_params"] = sum(p.numel() for p in model.parameters())
        gpt2 = out[f"gpt2_{preset}_step_s"]
        for name in names:
            out[f"{name}_{preset}_step_vs_gpt2"] = out[f"{name}_{preset}_step_s"] / gpt2
    return out
