"""Per model, paper preset, batch 64, length 20: step time, analytic FLOPs, GFLOP/s and its
ratio to the machine's gemm rate."""

import torch

from hf_induction.models import build_model
from hf_induction.models.flops import train_step_flops

from . import gemm
from .common import PAPER_LENGTH, VOCAB, train_steps
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    quick = options.quick
    rate = gemm.run(options)["gemm_gflops"]
    out = {"gemm_gflops": rate}
    for name in ("gpt2", "lstm", "dense_ssm", "mamba"):
        torch.manual_seed(0)
        model = build_model(name, VOCAB, "paper")
        # Mamba's pure-PyTorch path is very slow on the CPU (~15 s a step): one timed step,
        # and in --quick no warm-up step (one-time costs are small against 15 s).
        steps = 1 if name == "mamba" else (2 if quick else 5)
        seconds = train_steps(model, steps, warm_up=not (quick and name == "mamba"))
        flops = train_step_flops(name, model.config, 64, PAPER_LENGTH)
        out[f"{name}_paper_step_s"] = seconds
        out[f"{name}_paper_flops_per_step"] = flops
        out[f"{name}_paper_gflops"] = flops / seconds / 1e9
        out[f"{name}_paper_ratio_to_gemm"] = flops / seconds / 1e9 / rate
    return out
