"""Probes and steps per search, cold against warm-started (`runner.neighbours`), replayed from
the published campaigns' N* rows without training: each refined search is run again on the
outcomes its own probes recorded, first cold (which must give its recorded N* and bracket, or
the search is left out as not replayable), then from the hint its folder held when it started
(the rows finished by then). A size the warm search asks that the cold one never probed is
answered from monotonicity (just above a recorded success: a success, at that probe's cost;
just below a recorded failure: a failure, at its cost) and counted; a size this leaves open
leaves the search out.

Figures: the totals over every replayed search, ``probes_ratio`` and ``steps_ratio`` (cold
over warm), ``same_n_star`` (every replayed search's N* and bracket unchanged), and per
folder."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from hf_induction.results import ResultsFolder
from hf_induction.results.rows import NstarRow
from hf_induction.runner.neighbours import neighbour_hint
from hf_induction.search import ProbeOutcome, SearchSettings, refined_search
from hf_induction.tasks import parse_or_none

from .options import BenchOptions

RESULTS = Path(__file__).resolve().parents[1] / "results"


class NotReplayable(Exception):
    """A size the recording cannot answer, even by monotonicity."""


class RecordedProbes:
    """A search's recorded probe outcomes as a probe; ``assumed`` counts the sizes answered
    by monotonicity."""

    def __init__(self, outcomes: tuple[ProbeOutcome, ...]) -> None:
        self.by_n = {p.n: p for p in outcomes}
        self.assumed = 0

    def __call__(self, n: int) -> ProbeOutcome:
        if n in self.by_n:
            return self.by_n[n]
        below = max((m for m in self.by_n if m < n), default=None)
        above = min((m for m in self.by_n if m > n), default=None)
        # Monotonicity answers from the nearest recorded sizes: a success just below, or a
        # failure just above (both, if both are recorded, or the two disagree).
        success = below is not None and self.by_n[below].success
        failure = above is not None and not self.by_n[above].success
        if success == failure:
            raise NotReplayable(f"N = {n}: its recorded neighbours do not decide it")
        self.assumed += 1
        near = self.by_n[below if success else above]
        return ProbeOutcome(n=n, success=success, best_val_loss=near.best_val_loss,
                            steps=near.steps, runs=near.runs)


def _time(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def replay_folder(path: Path) -> dict:
    """Cold and warm replays of every refined search in one folder."""
    rows = ResultsFolder.existing(path).read(NstarRow)
    totals = dict(searches=0, replayed=0, probes_cold=0, probes_warm=0, steps_cold=0,
                  steps_warm=0, moved=0, assumed_probes=0, not_replayable=0)
    for row in rows:
        settings = SearchSettings(**json.loads(row.search_settings))
        cell = parse_or_none(row.dataset, row.config)
        if settings.mode != "refined" or cell is None:
            continue
        totals["searches"] += 1
        outcomes = row.probe_outcomes()
        pool = int(row.pool_size) if row.pool_size < 2**62 else 2**62
        cold = refined_search(RecordedProbes(outcomes), pool, settings)
        if (cold.largest_failing, cold.n_star) != (row.largest_failing, row.n_star):
            totals["not_replayable"] += 1
            continue
        started = _time(row.finished_at) - row.wall_s
        known = [r for r in rows if r is not row and _time(r.finished_at) <= started]
        hint = neighbour_hint(cell, row.model, known)
        probe = RecordedProbes(outcomes)
        try:
            warm = refined_search(probe, pool, settings,
                                  hint=None if hint is None else hint.size(pool))
        except NotReplayable:
            totals["not_replayable"] += 1
            continue
        totals["replayed"] += 1
        totals["probes_cold"] += cold.num_probes
        totals["probes_warm"] += warm.num_probes
        totals["steps_cold"] += cold.total_steps
        totals["steps_warm"] += warm.total_steps
        totals["assumed_probes"] += probe.assumed
        totals["moved"] += (warm.largest_failing, warm.n_star) != (
            cold.largest_failing, cold.n_star)
    return totals


def _ratios(t: dict) -> dict:
    return {**t, "probes_ratio": t["probes_cold"] / max(1, t["probes_warm"]),
            "steps_ratio": t["steps_cold"] / max(1, t["steps_warm"]),
            "same_n_star": t["moved"] == 0}


def run(options: BenchOptions) -> dict:
    folders = options.results or sorted(p.parent for p in RESULTS.glob("*/protocol.json"))
    out, total = {}, {}
    for folder in folders:
        figures = replay_folder(Path(folder))
        if not figures["searches"]:
            continue
        for key, value in figures.items():
            total[key] = total.get(key, 0) + value
        if not options.quick:
            for key, value in _ratios(figures).items():
                out[f"warm_start_{Path(folder).name}_{key}"] = value
    return {**{f"warm_start_{k}": v for k, v in _ratios(total).items()}, **out}
