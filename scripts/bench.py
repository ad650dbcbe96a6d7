"""Benchmarks: prints a table and, with --json FILE, writes the figures.

    python scripts/bench.py [--quick] [--only SECTION ...] [--json FILE]

Sections: generation (examples per second of the task generator), gemm (the machine's
fp32 matrix-multiply rate, the practical peak every achieved rate is compared with).
Ratios are measured side by side in one run; absolute times on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

SECTIONS = {}


def section(fn):
    SECTIONS[fn.__name__.removeprefix("bench_")] = fn
    return fn


def best_of(fn, repeat: int) -> float:
    """Fastest of ``repeat`` timings: the least disturbed by other work on the machine."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


@section
def bench_gemm(quick: bool) -> dict:
    import torch

    n = 1024
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    seconds = best_of(lambda: [a @ b for _ in range(10)], 3 if quick else 5) / 10
    return {"gemm_gflops": 2 * n**3 / seconds / 1e9, "torch_threads": torch.get_num_threads()}


@section
def bench_generation(quick: bool) -> dict:
    from hf_induction.tasks import TaskConfig, generate

    rows = 500_000 if quick else 2_000_000
    out = {}
    for name in ("acot_L30", "cot_L30", "acot_L30_uniform"):
        cfg = TaskConfig.parse("modadd", name)
        seconds = best_of(lambda cfg=cfg: generate(cfg, "train", rows, seed=0), 1 if quick else 2)
        out[f"generate_{name}_rows"] = rows
        out[f"generate_{name}_s"] = seconds
        out[f"generate_{name}_rows_per_s"] = rows / seconds
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller sizes, under 5 minutes")
    p.add_argument("--only", nargs="+", choices=sorted(SECTIONS), default=sorted(SECTIONS))
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args(argv)
    results = {"machine": platform.processor() or platform.machine(), "quick": args.quick}
    for name in args.only:
        print(f"[{name}]", flush=True)
        figures = SECTIONS[name](args.quick)
        for key, value in figures.items():
            print(f"  {key:48s} {value:,.4g}" if isinstance(value, float) else
                  f"  {key:48s} {value}")
        results.update(figures)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
