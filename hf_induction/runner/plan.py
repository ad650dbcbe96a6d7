"""What a campaign will do, said before it starts: its searches, each model's resolved budget
and how long it may take, from step times measured here, on this machine, at launch.

A search's time is not known in advance (it stops at N*, and runs stop at success or by the
early-failure rule), so the estimate is a bound: the probes of a search that never succeeds
(the most its doubling phase can take), every run of every probe to its step budget.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..search import SearchSettings
from ..search.oracle import probes_to_find
from ..tasks import DISJOINT, train_pool_size
from ..training import TrainSettings
from .job import SearchJob

# Grid steps timed after a first short run has paid for building the model and data.
TIMED_STEPS = 16


def measure_grid_step_s(model_factory: Callable, data, train: TrainSettings) -> float:
    """Seconds one step of the whole grid Φ takes, trained as the search trains it (stacked
    or one run after another): after a first run, two short runs of the grid, their
    difference over the steps between them, so that building the models and evaluating them
    is left out."""
    from ..training import train_grid

    n = min(data.pool_size, train.batch_size)

    def timed(steps: int) -> float:
        settings = replace(train, max_steps=steps, eval_every=steps, early_failure=None,
                           stop_on_first_success=False)
        start = time.perf_counter()
        train_grid(model_factory, data, n, settings)
        return time.perf_counter() - start

    # The first run also pays for what is built once per process (kernels, vmap's plans).
    timed(1)
    short = timed(2)
    return max(timed(2 + TIMED_STEPS) - short, 0.0) / TIMED_STEPS


def search_bound(job: SearchJob, search: SearchSettings, validation: str = DISJOINT) -> int:
    """The probes of the job's search where no size succeeds: doubling to the largest size
    (the pool as the ``validation`` rule leaves it to training)."""
    pool = train_pool_size(job.cell, validation)
    cap = min(search.n_max, pool)
    return probes_to_find(cap + 1, pool, search)


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def lrs_text(lrs: Sequence[float]) -> str:
    return ", ".join(f"{lr:g}" for lr in lrs)


def search_range(search: SearchSettings, pools: Sequence[int]) -> str:
    """The sizes a search may probe over cells of these pool sizes: from its first N to the
    smaller of --n-max and the pool, both clipped to what the cells hold."""
    caps = sorted({min(search.n_max, pool) for pool in pools})
    whole = all(search.n_max >= pool for pool in pools)
    if len(caps) > 1:
        where = "each cell's whole pool" if whole else "each cell's pool or --n-max"
        start = (f"N = {search.n_start:,}" if search.n_start <= caps[0]
                 else f"N = {search.n_start:,} (or a smaller cell's whole pool)")
        return (f"{search.mode} search from {start} up to {where} ({caps[0]:,} to "
                f"{caps[-1]:,})")
    cap = caps[0]
    limit = " (the whole pool)" if whole else ""
    if search.n_start >= cap:
        return f"{search.mode} search starting at N = {cap:,}{limit}"
    return f"{search.mode} search from N = {search.n_start:,} up to {cap:,}{limit}"


def budget_line(train: TrainSettings, search: SearchSettings, pools: Sequence[int]) -> str:
    """One model's resolved budget: the grid, steps, batch, evaluation, rule and the sizes
    its search may probe on cells of these ``pools``."""
    rule = train.early_failure
    return (f"lr {{{lrs_text(train.lrs)}}} × seed {{{', '.join(map(str, train.seeds))}}} "
            f"(grid {len(train.grid)}), {train.max_steps:,} steps a run, batch "
            f"{train.batch_size}, evaluated every {train.eval_every:,} steps, ε {train.epsilon:g}, "
            f"early failure {'off' if rule is None else rule.name}; "
            f"{search_range(search, pools)}")


CHECK_GRIDS = 2


def describe_plan(jobs: Sequence[SearchJob], settings_for: Callable[[str], tuple],
                  step_s: dict[str, float], processes: int = 1) -> str:
    """The plan as printed: searches per model, each model's budget, the time bound.

    ``settings_for(model)`` gives (TrainSettings, SearchSettings); ``step_s[model]`` the
    measured seconds of one step of its grid (models missing from it get no estimate)."""
    by_model: dict[str, list[SearchJob]] = defaultdict(list)
    for job in jobs:
        by_model[job.model].append(job)
    searches = sum(job.search for job in jobs)
    checks = len(jobs) - searches
    lines = [f"Plan: {searches} search{'es' * (searches != 1)}"
             + (f" and {checks} check{'s' * (checks != 1)}" if checks else "")
             + f" over {processes} process{'es' * (processes != 1)}"]
    total = 0.0
    for model, mine in by_model.items():
        train, search = settings_for(model)
        lines.append(f"  {model}: {', '.join(f'{j.cell.dataset}/{j.cell}' for j in mine)}")
        pools = [train_pool_size(j.cell, train.validation) for j in mine]
        lines.append(f"    budget: {budget_line(train, search, pools)}")
        if model in step_s:
            # A check without a search trains its grid at N, then retrains the best run (a
            # run's step costs at most a grid step): two grids' budget.
            grids = sum(search_bound(j, search, train.validation) if j.search else CHECK_GRIDS
                        for j in mine)
            steps = grids * train.max_steps
            seconds = steps * step_s[model]
            total += seconds
            lines.append(f"    time: {step_s[model] * 1e3:.3g} ms a grid step (measured now); "
                         f"at most {_duration(seconds)} ({steps:,} grid steps: no success, "
                         f"every run to its budget)")
    if step_s:
        lines.append(f"  at most {_duration(total / processes)} in all (a bound: a search stops "
                     "at N*, and a run at success or by the early-failure rule, so most "
                     "end far sooner)")
    return "\n".join(lines)
