"""Search settings, probe outcomes and results: validation, defaults, serialisation."""

import math

import pytest

from hf_induction.search import PAPER_N_MAX, ProbeOutcome, SearchResult, SearchSettings


def test_defaults_follow_the_paper_and_the_mode():
    s = SearchSettings()
    assert s.mode == "refined" and s.midpoint == "geometric" and s.rtol == 0.1
    p = SearchSettings(mode="paper")
    assert p.midpoint == "arithmetic" and p.factor == 1000 and p.max_search_steps == 20
    assert p.n_max == PAPER_N_MAX == 16_000_000
    assert SearchSettings(mode="paper", midpoint="geometric").midpoint == "geometric"
    assert SearchSettings().to_dict()["growth"] == 4


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mode": "binary"},
        {"midpoint": "harmonic"},
        {"factor": 1},
        {"growth": 1},
        {"n_start": 0},
        {"rtol": 0},
        {"max_search_steps": 0},
        {"n_max": 2.5},
    ],
    ids=lambda k: next(iter(k)),
)
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        SearchSettings(**kwargs)


def test_probe_outcome_validates_and_round_trips():
    with pytest.raises(ValueError):
        ProbeOutcome(n=0, success=True)
    with pytest.raises(ValueError):
        ProbeOutcome(n=True, success=True)
    o = ProbeOutcome(n=3, success=False, best_val_loss=0.2, steps=7, runs=[{"seed": 10}])
    assert o.runs == ({"seed": 10},)
    assert ProbeOutcome.from_dict(o.to_dict()) == o
    diverged = ProbeOutcome.from_dict({"n": 3, "success": False, "best_val_loss": None})
    assert math.isinf(diverged.best_val_loss)


def test_result_summary_and_dict():
    probes = (
        ProbeOutcome(n=200, success=True, steps=5),
        ProbeOutcome(n=100, success=False, steps=9),
    )
    r = SearchResult("refined", 200, 100, True, 1000, 1000, probes)
    assert r.total_steps == 14 and r.bracket == (100, 200)
    assert r.summary() == (
        "refined: N* = 200 (largest failing 100, within 100%); 2 probes, 14 steps"
    )
    assert r.to_dict()["probes"][1]["n"] == 100
