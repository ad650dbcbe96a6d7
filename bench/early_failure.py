"""How often the early-failure rule changes N*: full-grid searches with and without it."""

import dataclasses

from hf_induction.training import Patience

from .common import reference_settings, search_cell
from .options import BenchOptions

EARLY_FAILURE_CELLS = [
    ("modadd", "acot_L4_m3", "dense_ssm"),
    ("modadd", "outcome_L4_m3", "dense_ssm"),
    ("modadd", "acot_L3_m5", "dense_ssm"),
    ("modadd", "acot_L4_m3", "lstm"),
]


def run(options: BenchOptions) -> dict:
    settings = reference_settings(options.quick)
    out = {}
    changed = 0
    cells = EARLY_FAILURE_CELLS[:2] if options.quick else EARLY_FAILURE_CELLS
    for dataset, config, model in cells:
        key = f"{config}_{model}"
        full = search_cell(dataset, config, model, settings)
        early = search_cell(
            dataset, config, model, dataclasses.replace(settings, early_failure=Patience(200))
        )
        out[f"early_failure_{key}_n_star"] = f"{full['n_star']} -> {early['n_star']}"
        out[f"early_failure_{key}_steps_ratio"] = full["steps"] / early["steps"]
        changed += full["n_star"] != early["n_star"]
    out["early_failure_cells"] = len(cells)
    out["early_failure_nstar_changed"] = changed
    return out
