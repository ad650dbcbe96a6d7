"""What a stopping rule would have decided, replayed from recorded curves instead of trained.

A run's validation curve does not depend on when the other runs of its grid stop, nor on the
rule that may stop it: the rule only cuts the curve short. So the curves of a search recorded
with every run trained to its own end (no early failure, no stop at a probe's first success)
tell exactly what any early-failure rule, and any order of the runs, would have decided and
spent. This is how rules are designed against a benchmark without training it again
(scripts/bench.py --record / --replay); `train_grid` is the reference it must agree with.

One difference: a run whose training loss turns non-finite stops at that step when trained,
and at the next evaluation when replayed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .grid import Point, winners_first
from .settings import RunTracker, StopReason, TrainSettings

# (step, validation loss, mean training loss since the previous evaluation), per evaluation.
Curve = Sequence[tuple[int, float, float]]


class Unrecorded(KeyError):
    """A replayed search asked for a probe, or a run, that the recording never trained: its
    path left the recorded one, so some probe's outcome differs from the recording's."""


def replay_run(curve: Curve, settings: TrainSettings, n: int, pool: int | None = None
               ) -> tuple[StopReason, int]:
    """Why and after how many steps ``settings`` would stop the run that drew ``curve`` on
    ``n`` rows of a training pool of ``pool``."""
    tracker = RunTracker(settings, n=n, pool=pool)
    for step, val_loss, train_loss in curve:
        reason = tracker.observe(step, val_loss, train_loss)
        if reason is not None:
            return reason, step
    last = curve[-1][0] if curve else 0
    raise ValueError(f"a curve recorded to step {last} ends before its run does under "
                     f"{settings.max_steps} steps: record with every run trained to its end")


def replay_probe(curves: Mapping[Point, Curve], n: int, settings: TrainSettings,
                 stacked: bool, order: Sequence[Point] | None = None, pool: int | None = None
                 ) -> tuple[bool, int, list[Point]]:
    """(success, steps spent, points that reached ε) of one probe, as `train_grid` would.

    ``stacked``: every run trains at once, and all stop at the first success's evaluation;
    otherwise runs train one by one, those in ``order`` first, then the rest in the grid's
    order, and the first success decides the probe, so later runs cost nothing.
    """
    points = list(order or ())
    points += [p for p in settings.grid if p not in points]
    ends = {}
    for point in points:
        if point not in curves:
            raise Unrecorded(f"N = {n}, lr {point[0]:g}, seed {point[1]}")
    first = settings.stop_on_first_success
    if stacked:
        ends = {p: replay_run(curves[p], settings, n, pool) for p in points}
        hits = [s for r, s in ends.values() if r == "epsilon"]
        stop = min(hits) if hits and first else None
        steps = sum(s if stop is None else min(s, stop) for _, s in ends.values())
        # Runs that would have reached ε after the probe was decided are cut before it.
        winners = [p for p, (r, s) in ends.items()
                   if r == "epsilon" and (stop is None or s == stop)]
        return bool(hits), steps, winners
    steps = 0
    for point in points:
        reason, spent = replay_run(curves[point], settings, n, pool)
        steps += spent
        if reason == "epsilon":
            ends[point] = spent
            if first:
                break
    return bool(ends), steps, list(ends)


def replay_search(curves: Mapping[int, Mapping[Point, Curve]], pool_size: int, search,
                  settings: TrainSettings, stacked: bool, ordered: bool = False):
    """The `SearchResult` of ``search`` (SearchSettings) replayed from ``curves`` (per N, per
    point); ``ordered`` trains first the points that succeeded at earlier probes, as
    `runner.probe.JournalProbe` does. Raises `Unrecorded` where the replay leaves the
    recorded path."""
    from ..search import ProbeOutcome, run_search

    winners: list[Point] = []

    def probe(n: int) -> ProbeOutcome:
        nonlocal winners
        if n not in curves:
            raise Unrecorded(f"N = {n}")
        success, steps, won = replay_probe(curves[n], n, settings, stacked,
                                           winners if ordered else None, pool_size)
        winners = winners_first(won, winners)
        return ProbeOutcome(n=n, success=success, steps=steps)

    return run_search(probe, pool_size, search)
