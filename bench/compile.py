"""torch.compile (inductor, dynamic shapes) against eager: tiny-preset training steps.

Three sequence lengths in turn (11, 16, 22: acot, outcome and cot at L 10 and 20) and a
fresh model instance after them: the compiled-frame count must not grow with either, or
a search would recompile per cell and per run. Compile time is reported separately.
"""

import time

import torch
import torch._dynamo
from torch._dynamo.utils import counters

from hf_induction.models import build_model
from hf_induction.training import causal_lm_loss
from hf_induction.training.steps import logits_of

from .common import VOCAB
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    rounds = 10 if options.quick else 30
    names = ("dense_ssm", "gpt2") if options.quick else ("dense_ssm", "lstm", "gpt2")
    g = torch.Generator().manual_seed(0)
    batches = [torch.randint(0, VOCAB - 4, (64, t), generator=g) for t in (11, 16, 22)]
    out = {}
    for name in names:
        def stepper(model):
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)

            def one_round():  # seconds per step over one pass of the three lengths
                t = time.perf_counter()
                for ids in batches:
                    loss = causal_lm_loss(logits_of(model(input_ids=ids)), ids)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                return (time.perf_counter() - t) / len(batches)
            return one_round

        torch.manual_seed(0)
        eager = stepper(build_model(name, VOCAB, "tiny"))
        torch._dynamo.reset()
        counters.clear()
        compiled = stepper(torch.compile(build_model(name, VOCAB, "tiny"), dynamic=True))
        eager()
        compile_s = compiled() * len(batches)
        frames = counters["frames"]["ok"]
        # Interleaved rounds, best of each: load on a shared machine hits both alike.
        best_eager = best_compiled = float("inf")
        for _ in range(rounds):
            best_eager = min(best_eager, eager())
            best_compiled = min(best_compiled, compiled())
        stepper(torch.compile(build_model(name, VOCAB, "tiny"), dynamic=True))()
        out[f"{name}_eager_step_ms"] = best_eager * 1e3
        out[f"{name}_compiled_step_ms"] = best_compiled * 1e3
        out[f"{name}_compile_speedup"] = best_eager / best_compiled
        out[f"{name}_compile_s"] = compile_s
        out[f"{name}_frames_compiled"] = frames
        out[f"{name}_frames_recompiled_later"] = counters["frames"]["ok"] - frames
    return out
