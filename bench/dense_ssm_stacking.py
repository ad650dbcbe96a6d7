"""Forward + backward of 15 Dense-SSMs stacked (`stacked_forward`) against 15 separate
ones, batch 64, length 20, per state size and kernel: where stacking stops paying."""

import torch
from torch.func import stack_module_state

from hf_induction.models import build_model
from hf_induction.training import causal_lm_loss

from .common import PAPER_LENGTH, VOCAB, best_of
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    quick = options.quick
    runs = 15
    g = torch.Generator().manual_seed(0)
    out = {}
    for d in (16, 64, 128, 256):
        for kernel in ("grouped", "all_tokens"):
            models = [
                build_model("dense_ssm", VOCAB, "tiny", hidden_size=d, transition_kernel=kernel)
                for _ in range(runs)
            ]
            params, _ = stack_module_state(models)
            ids = torch.randint(0, VOCAB - 4, (runs, 64, PAPER_LENGTH), generator=g)

            def stacked(models=models, params=params, ids=ids):
                logits = models[0].stacked_forward(params, ids)
                sum(causal_lm_loss(logits[r], ids[r]) for r in range(runs)).backward()

            def separate(models=models, ids=ids):
                for r, model in enumerate(models):
                    causal_lm_loss(model(input_ids=ids[r]).logits, ids[r]).backward()

            repeat = (3 if quick else 10) if d <= 64 else (1 if quick else 3)
            stacked(), separate()  # warm-up
            key = f"dense_ssm_d{d}_{kernel}"
            out[f"{key}_stacked_15_s"] = best_of(stacked, repeat)
            out[f"{key}_separate_15_s"] = best_of(separate, repeat)
            speedup = out[f"{key}_separate_15_s"] / out[f"{key}_stacked_15_s"]
            out[f"{key}_stacking_speedup"] = speedup
    return out
