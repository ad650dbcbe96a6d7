"""The one benchmark command: ``python -m bench`` (or ``python scripts/bench.py``) prints a
table and, with --json FILE, writes the figures.

    python -m bench [--quick] [--only SECTION ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import time
from pathlib import Path

from . import SECTIONS
from . import __doc__ as SECTIONS_DOC
from .options import BenchOptions


def _forecast_parameters(text: str) -> dict:
    """``start=0.05,gap=0.05`` -> {"start": 0.05, "gap": 0.05}, checked by `Forecast`."""
    from hf_induction.training import Forecast

    try:
        pairs = dict(item.split("=", 1) for item in text.split(",") if item)
        kwargs = {k.strip(): float(v) for k, v in pairs.items()}
        Forecast(**kwargs)
    except (ValueError, TypeError) as e:
        raise argparse.ArgumentTypeError(
            f"expected KEY=VALUE pairs of margin, gap, start ({e})") from None
    return kwargs


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python scripts/bench.py",
                                description=__doc__ + "\n" + SECTIONS_DOC,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller sizes, under 5 minutes")
    p.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    p.add_argument("--json", metavar="FILE")
    p.add_argument("--cells", nargs="+", metavar="PART",
                   help="early_decisions: only the cells whose dataset/config/model holds one "
                   "of these, e.g. gpt2 or permutation/acot; architecture_steps: only the "
                   "models whose name holds one, beside GPT-2; delta_rule_chunked_vs_recurrent: "
                   "only the models whose name holds one")
    p.add_argument("--curves", metavar="FILE", type=Path,
                   help="early_decisions: write every run's (step, validation loss, training "
                   "loss) of the searches without the rule to FILE (JSON), after each cell")
    p.add_argument("--record", metavar="FILE", type=Path,
                   help="early_decisions: train each cell's search once, no rule, every run "
                   "to its own end, and add its curves to FILE (cells already there are kept)")
    p.add_argument("--replay", metavar="FILE", type=Path,
                   help="early_decisions: decide the searches with and without the rule from "
                   "the curves --record wrote, without training")
    p.add_argument("--forecast", metavar="KEY=VALUE,...", type=_forecast_parameters,
                   default={}, help="early_decisions --replay: the forecast rule's parameters "
                   "to replay, e.g. start=0.05,gap=0.05 (default: the rule's own)")
    p.add_argument("--results", nargs="+", metavar="FOLDER", type=Path, default=(),
                   help="warm_start: the results folders to replay (default: every published "
                   "folder under results/)")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (default 1: the steadiest on a shared 2-core machine)",
    )
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    options = BenchOptions(quick=args.quick, cells=tuple(args.cells) if args.cells else None,
                           curves=args.curves, record=args.record, replay=args.replay,
                           forecast=args.forecast, results=tuple(args.results))
    import torch

    torch.set_num_threads(args.threads)
    results = {
        "machine": platform.processor() or platform.machine(),
        "quick": args.quick,
        "threads": args.threads,
    }
    for name in args.only:
        print(f"[{name}]", flush=True)
        # Imported before the clock starts: a section's time is its own work, whichever runs
        # first and pays for importing the package.
        section = importlib.import_module(f"{__package__}.{name}")
        start = time.perf_counter()
        figures = section.run(options)
        figures[f"{name}_section_s"] = time.perf_counter() - start
        for key, value in figures.items():
            print(
                f"  {key:48s} {value:,.4g}" if isinstance(value, float) else f"  {key:48s} {value}"
            )
        results.update(figures)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0
