"""The forecast early-failure rule on synthetic curves, and the training loss it reads."""

import dataclasses
import math

import pytest

from hf_induction.training import (
    Forecast,
    Patience,
    TrainSettings,
    parse_early_failure,
    train_grid,
)
from hf_induction.training.tracker import RunTracker
from tests.training.helpers import EmbedLinear, echo_data

EPS = 1e-4
DEFAULT = Forecast()


def first_stop(curve, rule=DEFAULT, max_steps=1500, n=None, pool=None):
    """The step at which a run on ``n`` of a ``pool`` of rows with this (step, val, train)
    curve stops, and why (None: unknown)."""
    tracker = RunTracker(TrainSettings(max_steps=max_steps, eval_every=50, epsilon=EPS,
                                       early_failure=rule), n=n, pool=pool)
    for step, val, train in curve:
        reason = tracker.observe(step, val, train)
        if reason is not None:
            return step, reason
    return None


def power_law(level_at_50, slope, train_ratio, max_steps=1500):
    return [(s, level_at_50 * (s / 50) ** slope, train_ratio * level_at_50 * (s / 50) ** slope)
            for s in range(50, max_steps + 1, 50)]


def test_a_memorised_run_that_falls_too_slowly_stops_at_the_start():
    # Dense-SSM at N below N*: validation 0.15 falling as step^-0.4, training loss 1000x lower.
    stop = first_stop(power_law(0.15, -0.4, 1e-3))
    assert stop == (150, "early_failure")  # the first evaluation at or past 10% of 1,500
    # By hand: at 150 the slope over (50, 150] is -0.4; the forecast at 1,500 is far above 10ε.
    assert 0.15 * 3 ** -0.4 * 10 ** -0.4 > 10 * EPS


def test_a_run_falling_fast_enough_to_reach_epsilon_is_kept():
    # Slope -3 from 0.05: below 1e-4 at about step 400, well inside the budget.
    stop = first_stop(power_law(0.05, -3.0, 1e-3))
    assert stop is not None and stop[1] == "epsilon"


def test_a_plateau_where_training_loss_is_as_high_is_kept():
    # GPT-2's plateau: both losses at 1.46 for 1,000 steps, then a fall to below ε.
    curve = [(s, 1.46, 1.44) for s in range(100, 1100, 100)]
    curve += [(1100 + 100 * i, 1.46 * 10.0 ** (-i - 1), 1.0 * 10.0 ** (-i - 1)) for i in range(5)]
    assert first_stop(curve, max_steps=5000) == (1500, "epsilon")


def test_the_margin_is_the_forecast_threshold():
    # Flat at 5e-4, memorised: the forecast is 5e-4 itself, below 10ε but above 1ε.
    curve = [(s, 5e-4, 1e-6) for s in range(50, 1501, 50)]
    assert first_stop(curve, Forecast(margin=10.0)) == (1500, "budget")
    assert first_stop(curve, Forecast(margin=1.0)) == (150, "early_failure")


def test_the_probe_of_the_whole_pool_is_never_decided():
    # The Dense-SSM on all 3 words of Z_2: memorised at once, flat for thousands of steps,
    # then ε at step 17,500 of 20,000.
    curve = [(s, 0.7, 1e-5) for s in range(100, 17_500, 100)] + [(17_500, 5e-5, 1e-6)]
    assert first_stop(curve, max_steps=20_000, n=3, pool=3) == (17_500, "epsilon")
    # Below the whole pool, or where the pool is unknown, it is decided at 10% of the budget.
    assert first_stop(curve, max_steps=20_000, n=2, pool=3) == (2_000, "early_failure")
    assert first_stop(curve, max_steps=20_000, n=3) == (2_000, "early_failure")
    # The first version decided it too.
    assert first_stop(curve, Forecast(whole_pool=True), max_steps=20_000, n=3, pool=3) == (
        2_000, "early_failure")


def test_the_rule_is_off_by_default_and_the_budget_wins_at_the_last_step():
    curve = power_law(0.15, -0.4, 1e-3)
    assert first_stop(curve, None) == (1500, "budget")
    assert first_stop(curve, Patience(10_000)) == (1500, "budget")


@pytest.mark.parametrize("text, rule", [("off", None), ("OFF", None), ("forecast", Forecast()),
                                         ("forecast-v1", Forecast(whole_pool=True)),
                                         ("2500", Patience(2500))])
def test_parse_early_failure(text, rule):
    assert parse_early_failure(text) == rule


@pytest.mark.parametrize("text", ["0", "-3", "soon", "1.5"])
def test_parse_early_failure_refuses_in_one_line(text):
    with pytest.raises(ValueError, match="early failure must be") as info:
        parse_early_failure(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kwargs", [dict(margin=0.5), dict(gap=0.0), dict(gap=2.0),
                                    dict(start=1.0), dict(margin=math.inf)])
def test_forecast_refuses_bad_parameters(kwargs):
    with pytest.raises(ValueError, match="forecast"):
        Forecast(**kwargs)


def test_training_loss_is_the_mean_batch_loss_in_both_grid_modes():
    data = echo_data()
    settings = TrainSettings(max_steps=40, eval_every=10, lrs=(3e-2, 1e-3), seeds=(1, 2),
                             stop_on_first_success=False)
    heard = {}
    for mode in ("stacked", "sequential"):
        seen = heard[mode] = []
        train_grid(lambda: EmbedLinear(hidden=32), data, 24,
                   dataclasses.replace(settings, grid_mode=mode),
                   on_eval=lambda lr, seed, step, val, train, seen=seen: seen.append(
                       (lr, seed, step, val, train)))
    stacked = sorted(heard["stacked"])
    sequential = sorted(heard["sequential"])
    assert len(stacked) == len(sequential) == 4 * 4
    for a, b in zip(stacked, sequential, strict=True):
        assert a[:3] == b[:3]
        assert a[3:] == pytest.approx(b[3:], rel=1e-6)
    # Training loss falls on this learnable echo task, at the larger learning rate.
    fast = [t for lr, seed, step, val, t in sequential if lr == 3e-2 and seed == 1]
    assert fast[-1] < fast[0]


def test_the_protocol_records_the_rule_and_keeps_older_folders_hashes(tmp_path):
    import json
    from pathlib import Path

    from hf_induction.results.keys import stable_hash
    from hf_induction.runner.run import Campaign
    from hf_induction.search import SearchSettings

    # A folder written before the rules were objects, with no rule: its protocol must come
    # out identical (and so its hash, which keys every run of it).
    held = json.loads((Path(__file__).parents[2] / "results/lengthgen/protocol.json").read_text())
    t = held["train"]
    train = TrainSettings(max_steps=t["max_steps"], eval_every=t["eval_every"],
                          lrs=tuple(t["lrs"]), seeds=tuple(t["seeds"]), epsilon=t["epsilon"],
                          dtype=t["dtype"])
    search = SearchSettings(**held["search"])
    off = Campaign((), train, search, "tiny", tmp_path).protocol()
    assert json.loads(json.dumps(off)) == held and stable_hash(off) == stable_hash(held)
    patience = Campaign((), dataclasses.replace(train, early_failure=Patience(2500)), search,
                        "tiny", tmp_path).protocol()["train"]
    assert (patience["patience_steps"], patience["min_improvement"]) == (2500, 0.5)
    forecast = Campaign((), dataclasses.replace(train, early_failure=Forecast()), search,
                        "tiny", tmp_path).protocol()["train"]
    assert forecast["early_failure"] == {"margin": 10.0, "gap": 0.02, "start": 0.1,
                                         "whole_pool": False, "name": "forecast"}
    assert "patience_steps" not in forecast
    # The rule's first version, which decided runs on any training set, is recorded as it
    # was before it had whole_pool, so the folders made with it resume.
    first = Campaign((), dataclasses.replace(train, early_failure=parse_early_failure(
        "forecast-v1")), search, "tiny", tmp_path).protocol()["train"]
    assert first["early_failure"] == {"margin": 10.0, "gap": 0.02, "start": 0.1,
                                      "name": "forecast"}
    held = json.loads((Path(__file__).parents[2] / "results/cpu/protocol.json").read_text())
    assert held["train"]["early_failure"] == first["early_failure"]
