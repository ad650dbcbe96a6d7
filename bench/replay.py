"""What a stopping rule would have decided, replayed from recorded curves instead of trained.

A run's validation curve does not depend on when the other runs of its grid stop, nor on the
rule that may stop it: the rule only cuts the curve short. So the curves of a search recorded
with every run trained to its own end (no early failure, no stop at a probe's first success)
tell exactly what any early-failure rule, and any order of the runs, would have decided and
spent. This is how rules are designed against a benchmark without training it again
(``scripts/bench.py --only early_decisions --record`` / ``--replay``); `train_grid` is the
reference it must agree with (tests/training/test_replay.py).

One difference: a run whose training loss turns non-finite stops at that step when trained,
and at the next evaluation when replayed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hf_induction.search import ProbeOutcome, run_search
from hf_induction.training.grid import Point, winners_first
from hf_induction.training.settings import StopReason, TrainSettings
from hf_induction.training.tracker import RunTracker

# (step, validation loss, mean training loss since the previous evaluation), per evaluation.
Curve = Sequence[tuple[int, float, float]]


@dataclass(frozen=True)
class KnownFate:
    """The bound no stopping rule can beat: it knows from the recording which runs will
    never reach ε and stops them at their first evaluation; the runs that will reach ε train
    to it. ``whole_pool=False`` leaves the whole pool's probe to the full budget, as
    `Forecast` does, to bound rules that wait there."""

    whole_pool: bool = True

    def decides(self, n: int, pool: int | None) -> bool:
        return self.whole_pool or pool is None or n < pool


class Unrecorded(KeyError):
    """A replayed search asked for a probe, or a run, that the recording never trained: its
    path left the recorded one, so some probe's outcome differs from the recording's."""


def replay_run(curve: Curve, settings: TrainSettings, n: int, pool: int | None = None,
               fate: KnownFate | None = None) -> tuple[StopReason, int]:
    """Why and after how many steps ``settings`` would stop the run that drew ``curve`` on
    ``n`` rows of a training pool of ``pool`` (under ``fate``, if given, in place of the
    settings' rule)."""
    if fate is not None and fate.decides(n, pool) and not any(
            v < settings.epsilon for step, v, _ in curve if step <= settings.max_steps):
        return "early_failure", curve[0][0] if curve else 0
    tracker = RunTracker(settings, n=n, pool=pool)
    for step, val_loss, train_loss in curve:
        reason = tracker.observe(step, val_loss, train_loss)
        if reason is not None:
            return reason, step
    last = curve[-1][0] if curve else 0
    raise ValueError(f"a curve recorded to step {last} ends before its run does under "
                     f"{settings.max_steps} steps: record with every run trained to its end")


def replay_runs(curves: Mapping[Point, Curve], n: int, settings: TrainSettings,
                stacked: bool, order: Sequence[Point] | None = None, pool: int | None = None,
                fate: KnownFate | None = None) -> list[tuple[Point, StopReason, int]]:
    """(point, why it stopped, steps it spent) of every run of one probe, in training order,
    as `train_grid` would give them; a run the probe's first success spared or cut short is
    "probe_decided".

    ``stacked``: every run trains at once, and all stop at the first success's evaluation;
    otherwise runs train one by one, those in ``order`` first, then the rest in the grid's
    order, and the first success decides the probe, so later runs cost nothing.
    """
    points = list(order or ())
    points += [p for p in settings.grid if p not in points]
    for point in points:
        if point not in curves:
            raise Unrecorded(f"N = {n}, lr {point[0]:g}, seed {point[1]}")
    first = settings.stop_on_first_success
    if stacked:
        ends = {p: replay_run(curves[p], settings, n, pool, fate) for p in points}
        hits = [s for r, s in ends.values() if r == "epsilon"]
        stop = min(hits) if hits and first else None
        # Runs that would have reached ε after the probe was decided are cut before it.
        return [(p, r, s) if stop is None or s <= stop else (p, "probe_decided", stop)
                for p, (r, s) in ends.items()]
    runs: list[tuple[Point, StopReason, int]] = []
    decided = False
    for point in points:
        if decided:
            runs.append((point, "probe_decided", 0))
            continue
        reason, spent = replay_run(curves[point], settings, n, pool, fate)
        runs.append((point, reason, spent))
        decided = first and reason == "epsilon"
    return runs


def replay_probe(curves: Mapping[Point, Curve], n: int, settings: TrainSettings,
                 stacked: bool, order: Sequence[Point] | None = None, pool: int | None = None,
                 fate: KnownFate | None = None) -> tuple[bool, int, list[Point]]:
    """(success, steps spent, points that reached ε) of one probe (`replay_runs`)."""
    runs = replay_runs(curves, n, settings, stacked, order, pool, fate)
    winners = [p for p, reason, _ in runs if reason == "epsilon"]
    return bool(winners), sum(steps for _, _, steps in runs), winners


def replay_search(curves: Mapping[int, Mapping[Point, Curve]], pool_size: int, search,
                  settings: TrainSettings, stacked: bool, ordered: bool = False,
                  fate: KnownFate | None = None, log: list | None = None):
    """The `SearchResult` of ``search`` (SearchSettings) replayed from ``curves`` (per N, per
    point); ``ordered`` trains first the points that succeeded at earlier probes, as
    `runner.probe.JournalProbe` does; ``log``, if given, receives (N, `replay_runs`) for
    each probe. Raises `Unrecorded` where the replay leaves the recorded path."""
    winners: list[Point] = []

    def probe(n: int) -> ProbeOutcome:
        nonlocal winners
        if n not in curves:
            raise Unrecorded(f"N = {n}")
        runs = replay_runs(curves[n], n, settings, stacked, winners if ordered else None,
                           pool_size, fate)
        if log is not None:
            log.append((n, runs))
        winners = winners_first([p for p, reason, _ in runs if reason == "epsilon"], winners)
        return ProbeOutcome(n=n, success=any(r == "epsilon" for _, r, _ in runs),
                            steps=sum(steps for _, _, steps in runs))

    return run_search(probe, pool_size, search)
