"""A probe whose every run diverged measured the learning rates, not N: the search names it,
and no table may call such a search converged."""

from __future__ import annotations

import typing

import pytest

from hf_induction.search import ProbeOutcome, SearchResult, SearchSettings, run_search
from hf_induction.search.outcome import DIVERGED
from hf_induction.search.result import (
    ALL_DIVERGED,
    BRACKET_CLOSED,
    BRACKET_ON_DIVERGED,
    LARGEST_FAILED,
    NO_PROBE,
    PROBE_LIMIT,
)


def run(lr, reason, steps=3):
    return {"lr": lr, "seed": 10, "success": reason == "epsilon", "stop_reason": reason,
            "steps": steps}


def test_the_diverged_stop_reason_is_the_trainers():
    from hf_induction.training.settings import StopReason

    assert DIVERGED in typing.get_args(StopReason)


def test_a_probe_knows_which_rates_diverged_and_whether_all_did():
    mixed = ProbeOutcome(n=4, success=False, runs=(run(1e10, DIVERGED), run(1e-3, "budget"),
                                                    run(1e9, DIVERGED)))
    assert mixed.diverged_lrs == (1e9, 1e10) and not mixed.all_diverged
    # Runs the probe's decision stopped before their first step count for neither side.
    every = ProbeOutcome(n=4, success=False, runs=(run(1e10, DIVERGED),
                                                    run(1e-3, "probe_decided", steps=0)))
    assert every.all_diverged and every.diverged_lrs == (1e10,)
    assert not ProbeOutcome(n=4, success=False).all_diverged


def search(outcome_of, pool=64, **settings):
    def probe(n):
        return outcome_of(n)

    return run_search(probe, pool, SearchSettings(mode="refined", n_start=2, n_max=pool,
                                                  **settings))


def test_a_search_whose_every_run_diverged_ends_in_those_words():
    result = search(lambda n: ProbeOutcome(n=n, success=False, runs=(run(1e10, DIVERGED),)))
    assert result.n_star is None and result.converged
    assert result.end == ALL_DIVERGED and ALL_DIVERGED in result.summary()
    assert [p.n for p in result.diverged_probes] == [p.n for p in result.probes]


def test_a_failing_size_that_diverged_is_named_beside_a_bracket():
    # Below 10 every run diverges; from 10 on, one run succeeds.
    def outcome(n):
        if n >= 10:
            return ProbeOutcome(n=n, success=True, runs=(run(1e-3, "epsilon"),))
        return ProbeOutcome(n=n, success=False, runs=(run(1e-3, DIVERGED),))

    result = search(outcome, rtol=0.01)
    assert result.n_star == 10 and result.end == BRACKET_ON_DIVERGED


@pytest.mark.parametrize("outcome,settings,end", [
    (lambda n: ProbeOutcome(n=n, success=n >= 10, runs=(run(1e-3, "budget"),)), {},
     BRACKET_CLOSED),
    (lambda n: ProbeOutcome(n=n, success=False, runs=(run(1e-3, "budget"),)), {},
     LARGEST_FAILED),
    (lambda n: ProbeOutcome(n=n, success=n >= 10), {"max_search_steps": 1}, PROBE_LIMIT),
], ids=["bracket", "cap-failed", "probe-limit"])
def test_every_other_end_has_its_words(outcome, settings, end):
    assert search(outcome, **settings).end == end


def test_no_probe_is_its_own_end():
    assert SearchResult("refined", None, None, True, 10, 10, ()).end == NO_PROBE
