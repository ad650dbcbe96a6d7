"""15 runs as one stacked grid vs one run at a time (measured once, x15), same steps."""

from hf_induction.models import build_model

from .common import VOCAB, echo_data, stacked_and_one, timing_settings
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    quick = options.quick
    data = echo_data()
    out = {}
    cases = [(m, "tiny", 30 if quick else 100) for m in ("dense_ssm", "lstm", "gpt2")]
    # Mamba has no vmap rule, so its "stacked" grid trains run by run too: a few steps show it.
    cases += [("mamba", "tiny", 10 if quick else 100)]
    cases += [("dense_ssm", "paper", 2 if quick else 5), ("lstm", "paper", 2 if quick else 5)]
    if not quick:
        cases += [("gpt2", "paper", 2)]
    for name, preset, steps in cases:
        settings = timing_settings(steps, (1e-3, 1e-4, 1e-5))

        def factory(name=name, preset=preset):
            return build_model(name, VOCAB, preset)

        stacked, one = stacked_and_one(factory, data, settings)
        key = f"{name}_{preset}"
        out[f"{key}_grid_steps"] = steps
        out[f"{key}_stacked_15_s"] = stacked
        out[f"{key}_separate_15_s"] = 15 * one
        out[f"{key}_grid_speedup"] = 15 * one / stacked
    return out
