"""A whole N* search with `transformers.Trainer` (`hf_trainer_baseline`) over ours, same
budget: both N*, and the steps spent against the paper protocol's."""

import dataclasses

from hf_induction.training import Patience

from .common import REFERENCE_CELL, reference_settings, search_cell
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    settings = reference_settings(options.quick)
    out = {
        "reference_cell": "/".join(REFERENCE_CELL) + " dense_ssm tiny",
        "reference_runs_per_probe": len(settings.grid),
        "reference_max_steps": settings.max_steps,
    }
    ours = search_cell(*REFERENCE_CELL, "dense_ssm", settings)
    early = search_cell(
        *REFERENCE_CELL, "dense_ssm", dataclasses.replace(settings, early_failure=Patience(200))
    )
    # The Trainer draws the protocol's batches (the same rows as ours), so both searches follow
    # the same trajectories and must find the same N*.
    hf = search_cell(*REFERENCE_CELL, "dense_ssm", settings, trainer="hf_trainer")
    searches = [("ours", ours), ("ours_early_failure", early), ("hf_trainer", hf)]
    if not options.quick:
        # The Trainer's own shuffled epochs: a different procedure below 64 rows.
        searches.append(("hf_trainer_epochs", search_cell(
            *REFERENCE_CELL, "dense_ssm", settings, trainer="hf_trainer", batches="epochs"
        )))
    for tag, r in searches:
        for key in ("n_star", "largest_failing", "wall_s", "steps", "probes"):
            out[f"search_{tag}_{key}"] = r[key]
    out["search_speedup_vs_trainer"] = hf["wall_s"] / ours["wall_s"]
    out["search_speedup_vs_trainer_early_failure"] = hf["wall_s"] / early["wall_s"]
    # The paper's protocol: 15 runs x 250,000 steps for every probe.
    paper_steps = ours["probes"] * 15 * 250_000
    out["search_steps_paper_protocol"] = paper_steps
    out["search_steps_ratio_paper_over_ours"] = paper_steps / ours["steps"]
    return out
