"""Estimate the device hours of a sweep at the paper's model sizes and 250,000-step budget.

    hf-induction estimate-grid --sweep paper_grid --results results/first_campaign

Prints, per model, the probes, training steps, FLOPs and hours at each --tflops rate (and,
with --device-check, at the rate the prepared device script measured for it) under
(1) the paper's protocol (Algorithm 1, every run its full budget) and (2) ours (the refined
search, runs and probes stopped once decided), whose spent fraction of the full budget is
measured per model in the --results folder. N* of each cell is assumed (1,000, or half of a
smaller pool): the number of probes depends on it only logarithmically.
"""

from __future__ import annotations

import json
from pathlib import Path

from hf_induction.commands.parsing import Parser, first_line, positive_finite, prog
from hf_induction.estimate import (
    ALGORITHM_1,
    REFINED,
    budget_fractions,
    measured_rates,
    sweep_cost,
)
from hf_induction.results import existing_results_folder, latest
from hf_induction.results.render import markdown_table
from hf_induction.results.render import number as fmt
from hf_induction.runner.sweep import load_sweep
from hf_induction.sweeps import sweep_file

from ..results.rows import NstarRow


def read_device_check(path: Path) -> tuple[dict[str, float], str]:
    """(each model's measured rate, the device) of a device check's JSON, or ValueError in one
    line naming the file and what it should hold."""
    try:
        check = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else first_line(e)
        raise ValueError(f"--device-check {path}: {why}") from None
    if not isinstance(check, dict):
        raise ValueError(f"--device-check {path}: holds a JSON {type(check).__name__}, not the "
                         "object of figures the device check writes")
    try:
        rates = measured_rates(check)
    except (TypeError, ValueError) as e:
        raise ValueError(f"--device-check {path}: a MODEL_run_steps_per_s figure is not a "
                         f"number ({first_line(e)})") from None
    if not rates:
        raise ValueError(f"--device-check {path}: no MODEL_run_steps_per_s figure (run its "
                         "processes measurement)")
    return rates, str(check.get("device", "the device"))


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog=prog(__name__), description=__doc__)
    p.add_argument("--sweep", type=sweep_file, required=True,
                   help="the sweep file to cost, or paper_grid (the paper's whole grid, which "
                   "the package ships)")
    p.add_argument("--results", type=existing_results_folder,
                   help="a results folder to measure the saving in (default: none; our "
                   "protocol's fraction of the full budget is then taken as 1)")
    p.add_argument("--tflops", type=positive_finite, nargs="+", default=[20.0, 100.0],
                   help="achieved device rates to convert FLOPs to hours (TFLOP/s)")
    p.add_argument("--device-check", type=Path, metavar="JSON",
                   help="the JSON a checkout's scripts/device_check.sh writes on a GPU: "
                   "hours from each model's measured trained runs x steps per second (its "
                   "processes measurement) in a column of their own, summed over the models it "
                   "measured (default: none; hours from --tflops only)")
    args = p.parse_args(argv)
    rates, device = {}, None
    try:
        if args.device_check is not None:
            rates, device = read_device_check(args.device_check)
        jobs = load_sweep(args.sweep).jobs
    except ValueError as e:
        p.error(str(e))
    fractions = {}
    if args.results is not None:
        folder = args.results
        fractions = budget_fractions(latest(folder.read(NstarRow)), folder.read_protocol())
    header = ["protocol", "model", "searches", "probes", "fraction of full budget",
              "training steps", "PFLOP"] + [f"hours at {t:g} TFLOP/s" for t in args.tflops]
    if rates:
        header.append(f"hours on {device} (measured)")
    rows = []
    for label, settings, frac in (("paper (Algorithm 1, full budgets)", ALGORITHM_1, None),
                                  ("ours (refined, stop when decided)", REFINED, fractions)):
        costs = sweep_cost(jobs, frac, settings)
        total = [0.0] * len(args.tflops)
        measured = 0.0
        for model, c in sorted(costs.items()):
            hours = [c.hours(t * 1e12) for t in args.tflops]
            total = [a + b for a, b in zip(total, hours, strict=True)]
            f = 1.0 if frac is None else frac.get(model)
            rows.append([label, model, str(c.searches), fmt(c.probes),
                         "1 (assumed)" if f is None else f"{f:.3f}", f"{c.steps:.3g}",
                         f"{c.flops / 1e15:,.0f}"] + [f"{h:,.0f}" for h in hours])
            if rates:
                # c.steps counts run-steps: every probe's grid runs times their steps.
                hours_here = c.steps / rates[model] / 3600 if model in rates else None
                measured += hours_here or 0.0
                rows[-1].append("not measured" if hours_here is None else f"{hours_here:,.0f}")
        rows.append([label, "all", "", "", "", "", ""] + [f"**{h:,.0f}**" for h in total]
                    + ([f"**{measured:,.0f}** (measured models)"] if rates else []))
    print(markdown_table(header, rows))
    missing = sorted({j.model for j in jobs} - set(fractions)) if fractions else []
    if missing:
        print(f"\n(no searches of {', '.join(missing)} in {args.results}: its fraction is 1)")
    if unmeasured := sorted({j.model for j in jobs} - set(rates)) if rates else []:
        print(f"\n({', '.join(unmeasured)}: not measured in {args.device_check}; the measured "
              "column leaves them out)")
    return 0

