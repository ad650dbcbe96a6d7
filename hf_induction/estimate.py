"""What a sweep would cost at the paper's sizes: probes, training steps, FLOPs, device hours.

Counted, not guessed, where it can be: the number of probes comes from running the search
itself against a threshold oracle (a size succeeds iff it is at least the assumed N*), the
FLOPs per step from the models' analytic count at each cell's sequence length. Two inputs
are assumptions and are reported as such: the N* of each cell, and the device's
achieved FLOP rate. The early-stopping saving is the fraction of the full budget our
searches actually spent, measured per model in a results folder.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from .models import build_config
from .models.flops import train_step_flops
from .results.protocol import model_protocol
from .runner.budgets import BUDGETS
from .runner.job import SearchJob
from .search import SearchSettings
from .search.oracle import probes_to_find
from .search.settings import PAPER_N_MAX
from .tasks import train_pool_size

PAPER = BUDGETS["paper"].values()
PAPER_GRID = len(PAPER["lrs"]) * len(PAPER["seeds"])
ALGORITHM_1 = SearchSettings(mode="paper", n_max=PAPER_N_MAX)
REFINED = SearchSettings(mode="refined", n_max=PAPER_N_MAX, n_start=PAPER["n_start"])


def assumed_nstar(job: SearchJob) -> int:
    """The N* assumed for a cell: 1,000, or half its pool where that is smaller."""
    return max(1, min(1000, train_pool_size(job.cell) // 2))


@dataclass
class Cost:
    """The summed cost of many searches of one model under one protocol."""

    searches: int = 0
    probes: int = 0
    steps: float = 0.0
    flops: float = 0.0

    def hours(self, flops_per_s: float) -> float:
        return self.flops / flops_per_s / 3600


def sweep_cost(jobs: Iterable[SearchJob],
               budget_fraction: Mapping[str, float] | None = None,
               settings: SearchSettings = ALGORITHM_1,
               preset: str = "paper") -> dict[str, Cost]:
    """Per model: the cost of every job's search under the paper's grid and 250,000 steps.

    ``budget_fraction[model]`` scales each probe's steps (1.0, the default, is the paper's
    protocol: every run trains its full budget).
    """
    costs: dict[str, Cost] = defaultdict(Cost)
    for job in jobs:
        pool = train_pool_size(job.cell)
        probes = probes_to_find(assumed_nstar(job), pool,
                                replace(settings, n_max=min(settings.n_max, PAPER_N_MAX)))
        fraction = (budget_fraction or {}).get(job.model, 1.0)
        steps = probes * PAPER_GRID * PAPER["max_steps"] * fraction
        config = build_config(job.model, job.cell.vocab, preset)
        # The trainer feeds every token but the last, whose output predicts nothing.
        length = job.cell.token_length(job.cell.max_len) - 1
        c = costs[job.model]
        c.searches += 1
        c.probes += probes
        c.steps += steps
        c.flops += steps * train_step_flops(job.model, config, PAPER["batch_size"], length)
    return dict(costs)


def budget_fractions(rows: Sequence, protocol: Mapping) -> dict[str, float]:
    """Per model: steps spent over the steps of every probe's full grid at its full budget,
    the budget and grid being the folder's protocol as that model ran under it."""
    spent: dict[str, float] = defaultdict(float)
    full: dict[str, float] = defaultdict(float)
    for r in rows:
        train = model_protocol(protocol, r.model)["train"]
        grid_size = len(train["lrs"]) * len(train["seeds"])
        spent[r.model] += r.total_steps
        full[r.model] += r.num_probes * grid_size * train["max_steps"]
    return {m: spent[m] / full[m] for m in spent if full[m]}


# The key of a model's best measured rate in the device check's JSON (`bench/device_check.py`,
# its processes measurement): trained runs x steps per second, at its best process count.
RATE_SUFFIX = "_run_steps_per_s"


def measured_rates(check: Mapping) -> dict[str, float]:
    """Per model: the trained runs x steps per second the device check measured (the best
    process count's; the per-count figures ``MODEL_P4_run_steps_per_s`` are not read)."""
    rates = {}
    for key, value in check.items():
        model = key.removesuffix(RATE_SUFFIX)
        if model != key and not re.search(r"_P\d+$", model) and float(value) > 0:
            rates[model] = float(value)
    return rates
