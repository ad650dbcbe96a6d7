"""The paper and refined searches against a fake trainer whose success threshold is known."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_induction.search import (
    ProbeOutcome,
    SearchSettings,
    paper_search,
    refined_search,
    run_search,
)
from hf_induction.search.probing import ProbeLog, midpoint

PAPER = SearchSettings(mode="paper")
REFINED = SearchSettings(mode="refined")


class ThresholdProbe:
    """Succeeds iff N >= threshold; fails the test if any N is probed twice or out of range."""

    def __init__(self, threshold: int, cap: int) -> None:
        self.threshold = threshold
        self.cap = cap
        self.calls: list[int] = []

    def __call__(self, n: int) -> ProbeOutcome:
        assert isinstance(n, int) and 1 <= n <= self.cap, n
        assert n not in self.calls, f"N={n} probed twice"
        self.calls.append(n)
        success = n >= self.threshold
        return ProbeOutcome(
            n=n,
            success=success,
            best_val_loss=1e-5 if success else 0.5,
            steps=100 if success else 1000,
            runs=({"lr": 1e-3, "seed": 10, "success": success},),
        )


def _bracket_holds(result, threshold):
    lo, hi = result.largest_failing, result.n_star
    return lo is not None and hi is not None and lo < threshold <= hi


@pytest.mark.parametrize("threshold", [1, 2, 5, 6, 7, 100, 999, 4999, 5000], ids="T{}".format)
def test_paper_finds_threshold_exactly(threshold):
    pool = 5000
    probe = ThresholdProbe(threshold, pool)
    result = paper_search(probe, pool, PAPER)
    assert result.converged
    assert result.n_star == threshold
    assert result.largest_failing == threshold - 1
    assert result.num_probes <= PAPER.max_search_steps
    assert [p.n for p in result.probes] == probe.calls
    assert result.probes[0].n == pool
    assert result.total_steps == sum(p.steps for p in result.probes)


def test_paper_geometric_phase_divides_by_m_and_clamps_to_one():
    probe = ThresholdProbe(1, 16_000_000)
    result = paper_search(probe, 16_000_000, PAPER)
    assert probe.calls == [16_000_000, 16_000, 16, 1]
    assert (result.largest_failing, result.n_star) == (0, 1)
    probe = ThresholdProbe(3, 500)
    paper_search(probe, 500, PAPER)
    assert probe.calls[:2] == [500, 1]


def test_paper_cap_failing_means_not_learnable():
    probe = ThresholdProbe(5001, 5000)
    result = paper_search(probe, 5000, PAPER)
    assert result.n_star is None and result.largest_failing == 5000
    assert result.converged and probe.calls == [5000]
    assert "N* > 5,000" in result.summary()


def test_paper_stops_after_s_probes():
    # 16,000 .. 16,000,000 needs ~24 bisections: more than S = 20 allows.
    pool = 16_000_000
    result = paper_search(ThresholdProbe(pool - 7, pool), pool, PAPER)
    assert result.num_probes == 20 and not result.converged
    assert _bracket_holds(result, pool - 7)
    assert "step limit" in result.summary()


def test_paper_step_limit_inside_geometric_phase_leaves_failure_unknown():
    result = paper_search(ThresholdProbe(1, 10**6), 10**6, SearchSettings("paper", 2))
    assert result.n_star == 1000 and result.largest_failing is None and not result.converged


@pytest.mark.parametrize("rule", ["geometric", "arithmetic"])
def test_paper_midpoint_rules_both_find_threshold(rule):
    s = SearchSettings(mode="paper", midpoint=rule)
    assert paper_search(ThresholdProbe(321, 4000), 4000, s).n_star == 321


@pytest.mark.parametrize(
    "threshold", [1, 2, 3, 15, 16, 17, 100, 12_345, 999_999, 10**6], ids="T{}".format
)
def test_refined_brackets_threshold_within_rtol(threshold):
    pool = 10**6
    result = refined_search(ThresholdProbe(threshold, pool), pool, REFINED)
    lo, hi = result.largest_failing, result.n_star
    assert result.converged
    assert lo < threshold <= hi
    assert hi - lo <= 1 or hi <= lo * (1 + REFINED.rtol)
    # Bracketing: about log_4(pool / 16) + 1 probes; bisection: log2(log 4 / log 1.1) + 1.
    bracketing = math.ceil(math.log(pool / 16, 4)) + 1
    bisection = math.ceil(math.log2(math.log(4) / math.log(1.1))) + 1
    bound = bracketing + bisection
    assert result.num_probes <= bound


def test_refined_uses_fewer_probes_than_paper_for_a_mid_sized_threshold():
    pool, threshold = 16_000_000, 3_000
    paper = paper_search(ThresholdProbe(threshold, pool), pool, PAPER)
    refined = refined_search(ThresholdProbe(threshold, pool), pool, REFINED)
    assert refined.num_probes < paper.num_probes


def test_refined_goes_down_when_the_start_succeeds():
    probe = ThresholdProbe(1, 100)
    result = refined_search(probe, 100, REFINED)
    assert probe.calls == [16, 4, 1]
    assert (result.largest_failing, result.n_star) == (0, 1)
    assert "exact" in result.summary()


def test_refined_starts_at_the_pool_when_it_is_smaller():
    probe = ThresholdProbe(3, 5)
    result = refined_search(probe, 5, REFINED)
    assert probe.calls[0] == 5 and result.n_star == 3


def test_refined_probes_the_cap_last_and_reports_not_learnable():
    probe = ThresholdProbe(10**9, 1000)
    result = refined_search(probe, 1000, REFINED)
    assert probe.calls == [16, 64, 256, 1000]
    assert result.n_star is None and result.largest_failing == 1000 and result.converged


def test_n_max_caps_both_modes():
    for mode in ("paper", "refined"):
        s = SearchSettings(mode=mode, n_max=100)
        result = run_search(ThresholdProbe(1000, 100), 10**6, s)
        assert result.mode == mode and result.n_cap == 100
        assert result.n_star is None and result.largest_failing == 100


@settings(max_examples=150, deadline=None)
@given(
    pool=st.integers(1, 20_000_000),
    where=st.floats(0, 1.05),
    mode=st.sampled_from(["paper", "refined"]),
    rule=st.sampled_from(["geometric", "arithmetic"]),
)
def test_search_properties(pool, where, mode, rule):
    s = SearchSettings(mode=mode, midpoint=rule)
    cap = min(s.n_max, pool)
    threshold = max(1, round(where * cap))
    probe = ThresholdProbe(threshold, cap)
    result = run_search(probe, pool, s)
    assert result.num_probes <= s.max_search_steps
    assert [p.n for p in result.probes] == probe.calls
    if threshold > cap:
        assert result.n_star is None and result.largest_failing == cap
        return
    if mode == "refined":
        assert result.converged
    if result.converged:
        assert _bracket_holds(result, threshold)
        lo, hi = result.largest_failing, result.n_star
        if mode == "paper":
            assert hi == threshold
        else:
            assert hi - lo <= 1 or hi <= lo * (1 + s.rtol)
    else:
        assert result.n_star >= threshold


@given(
    lo=st.integers(0, 10**8),
    gap=st.integers(2, 10**8),
    rule=st.sampled_from(["geometric", "arithmetic"]),
)
def test_midpoint_is_strictly_inside(lo, gap, rule):
    assert lo < midpoint(lo, lo + gap, rule) < lo + gap


def test_probe_log_memoises_and_checks_the_probe():
    calls = []

    def probe(n):
        calls.append(n)
        return ProbeOutcome(n=n, success=True)

    log = ProbeLog(probe, limit=2)
    assert log.succeeds(5) and log.succeeds(5)
    assert calls == [5]
    log.succeeds(6)
    assert log.exhausted
    with pytest.raises(RuntimeError):
        log.succeeds(7)
    with pytest.raises(TypeError):
        ProbeLog(lambda n: ProbeOutcome(n=n + 1, success=True), 3).succeeds(4)


def test_pool_size_must_be_positive():
    with pytest.raises(ValueError):
        refined_search(ThresholdProbe(1, 1), 0)
