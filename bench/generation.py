"""Examples per second of the task generator."""

from hf_induction.tasks import WordProblemCell, generate

from .common import best_of
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    rows = 500_000 if options.quick else 2_000_000
    out = {}
    for name in ("acot_L30", "cot_L30", "acot_L30_uniform"):
        cfg = WordProblemCell.parse("modadd", name)
        seconds = best_of(lambda cfg=cfg: generate(cfg, "train", rows, seed=0),
                          1 if options.quick else 2)
        out[f"generate_{name}_rows"] = rows
        out[f"generate_{name}_s"] = seconds
        out[f"generate_{name}_rows_per_s"] = rows / seconds
    return out
