"""Replaying recorded curves decides what training decides: the reference is `train_grid`."""

import dataclasses

import pytest

from bench.replay import (
    KnownFate,
    Unrecorded,
    replay_probe,
    replay_runs,
    replay_search,
)
from hf_induction.search import SearchSettings, run_search
from hf_induction.search.outcome import ProbeOutcome
from hf_induction.training import Forecast, TrainData, TrainSettings, train_grid
from tests.training.helpers import EmbedLinear, echo_data

BASE = TrainSettings(max_steps=200, eval_every=10, lrs=(1e-3, 3e-2), seeds=(1, 2), epsilon=0.05,
                     batch_size=8)
RULE = Forecast(margin=1.0)


def unlearnable(data: TrainData) -> TrainData:
    """Validation labels one token off the echo: training rows fit, unseen ones never do."""
    val = data.val_labels.clone()
    val[val > 0] = val[val > 0] % 5 + 1
    return dataclasses.replace(data, val_labels=val)


def record(data, n, settings):
    curves = {}
    train_grid(lambda: EmbedLinear(hidden=32), data, n,
               dataclasses.replace(settings, early_failure=None, stop_on_first_success=False),
               on_eval=lambda lr, seed, step, val, train: curves.setdefault(
                   (lr, seed), []).append((step, val, train)))
    return curves


@pytest.mark.parametrize("mode", ["sequential", "stacked"])
@pytest.mark.parametrize("data, n", [(echo_data(), 24), (unlearnable(echo_data()), 24),
                                     (unlearnable(echo_data()), 8)])
@pytest.mark.parametrize("rule", [None, RULE])
@pytest.mark.parametrize("first", [(), ((3e-2, 2), (1e-3, 2))])
def test_a_replayed_probe_spends_and_decides_what_training_does(mode, data, n, rule, first):
    settings = dataclasses.replace(BASE, grid_mode=mode, early_failure=rule)
    trained = train_grid(lambda: EmbedLinear(hidden=32), data, n, settings, first=first)
    curves = record(data, n, settings)
    success, steps, winners = replay_probe(curves, n, settings, stacked=mode == "stacked",
                                           order=first)
    runs = replay_runs(curves, n, settings, stacked=mode == "stacked", order=first)
    assert sorted(runs) == sorted(((r.lr, r.seed), r.stop_reason, r.steps) for r in trained)
    assert success == any(r.success for r in trained)
    assert steps == sum(r.steps for r in trained)
    assert sorted(winners) == sorted((r.lr, r.seed) for r in trained if r.success)
    if mode == "sequential" and first and success:
        # The first point succeeds on the echo task: no other run is trained.
        assert [(r.lr, r.seed, r.stop_reason) for r in trained][0] == (3e-2, 2, "epsilon")
        assert all(r.steps == 0 for r in trained[1:])


def test_the_whole_pool_is_left_to_the_full_budget_in_the_replay_too():
    data = dataclasses.replace(unlearnable(echo_data()), whole_pool=24)
    settings = dataclasses.replace(BASE, early_failure=RULE)
    for n, early in ((16, True), (24, False)):
        trained = train_grid(lambda: EmbedLinear(hidden=32), data, n, settings)
        assert (sum(r.steps for r in trained) < 4 * BASE.max_steps) == early
        _, steps, _ = replay_probe(record(data, n, settings), n, settings, stacked=True,
                                   pool=24)
        assert steps == sum(r.steps for r in trained)


def test_a_replayed_search_matches_the_trained_one_and_says_where_it_leaves_the_recording():
    data = echo_data()
    settings = dataclasses.replace(BASE, grid_mode="stacked", early_failure=RULE)
    search = SearchSettings(mode="refined", n_start=2, n_max=48)

    def probe(n):
        runs = train_grid(lambda: EmbedLinear(hidden=32), data, n, settings)
        return ProbeOutcome(n=n, success=any(r.success for r in runs),
                            steps=sum(r.steps for r in runs))
    trained = run_search(probe, data.pool_size, search)
    curves = {p.n: record(data, p.n, settings) for p in trained.probes}
    replayed = replay_search(curves, data.pool_size, search, settings, stacked=True)
    assert (replayed.n_star, replayed.largest_failing, replayed.total_steps) == (
        trained.n_star, trained.largest_failing, trained.total_steps)
    first = trained.probes[0].n
    with pytest.raises(Unrecorded, match=f"N = {first}"):
        replay_search({}, data.pool_size, search, settings, stacked=True)


def test_a_curve_that_ends_before_its_run_is_refused():
    curve = [(10, 1.0, 1.0), (20, 0.9, 0.9)]
    with pytest.raises(ValueError, match="ends before its run does"):
        replay_probe({(1e-3, 1): curve}, 8, dataclasses.replace(BASE, lrs=(1e-3,), seeds=(1,)),
                     stacked=False)



@pytest.mark.parametrize("stacked", [False, True])
def test_the_known_fate_bound_stops_only_the_runs_that_never_reach_epsilon(stacked):
    settings = dataclasses.replace(BASE, early_failure=None)
    grid = list(settings.grid)
    # Two runs reach ε (at steps 30 and 50), two never do; evaluations every 10 steps.
    curves = {grid[0]: [(s, 1.0, 1.0) for s in range(10, 201, 10)],
              grid[1]: [(10, 1.0, 1.0), (20, 0.5, 0.5), (30, 0.01, 0.01)],
              grid[2]: [(s, 0.5, 0.5) for s in range(10, 201, 10)],
              grid[3]: [(10, 1.0, 1.0), (20, 0.5, 0.5), (30, 0.2, 0.2), (40, 0.1, 0.1),
                        (50, 0.01, 0.01)]}
    known = replay_runs(curves, 24, settings, stacked, fate=KnownFate())
    # One by one, the run after the first success is never trained.
    assert [p for p, r, _ in known if r == "early_failure"] == (
        [grid[0], grid[2]] if stacked else [grid[0]])
    assert all(s == 10 for _, r, s in known if r == "early_failure")
    # The run to ε at step 30 decides the probe; the one at 50 is spared or cut at 30.
    assert (grid[1], "epsilon", 30) in known
    assert (grid[3], "probe_decided", 30 if stacked else 0) in known
    # Left to the full budget on the whole pool's probe when asked, as Forecast leaves it.
    waiting = replay_runs(curves, 24, settings, stacked, pool=24,
                          fate=KnownFate(whole_pool=False))
    assert waiting == replay_runs(curves, 24, settings, stacked, pool=24)
    assert sum(s for *_, s in known) < sum(s for *_, s in waiting)
