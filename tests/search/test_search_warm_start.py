"""The warm start: from a hint, the refined search reaches the cold search's bracket and N*
whenever outcomes are monotone in N, from fewer probes when the hint is near N*."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_induction.search import ProbeOutcome, SearchSettings, refined_search, run_search
from hf_induction.search.refined import warm_start


def outcome(n: int, success: bool) -> ProbeOutcome:
    return ProbeOutcome(n=n, success=success, best_val_loss=1e-5 if success else 0.5,
                        steps=100 if success else 1000,
                        runs=({"lr": 1e-3, "seed": 10, "success": success},))


class TableProbe:
    """Succeeds where ``success(n)``; records every N asked, and refuses a second ask."""

    def __init__(self, success) -> None:
        self.success = success
        self.calls: list[int] = []

    def __call__(self, n: int) -> ProbeOutcome:
        assert n not in self.calls, f"N={n} probed twice"
        self.calls.append(n)
        return outcome(n, self.success(n))


def search(success, pool, settings, hint=None):
    return refined_search(TableProbe(success), pool, settings, hint=hint)


@pytest.mark.parametrize(("hint", "start"), [
    (None, 16), (1, 16), (16, 16), (17, 64), (64, 64), (65, 256), (1_328, 4_096),
    (4_096, 4_096), (4_097, 4_096), (10**9, 4_096)])
def test_start_is_the_first_climb_point_at_or_above_the_hint_below_the_cap(hint, start):
    # n_start 16, growth 4, n_cap 5,000: the climb is 16, 64, 256, 1,024, 4,096, then 5,000.
    assert warm_start(SearchSettings(), 5_000, hint) == start


def test_start_with_a_pool_below_n_start_is_the_pool():
    assert warm_start(SearchSettings(), 10, 10**6) == 10


@pytest.mark.parametrize("hint", [0, -3, 2.5, True, "100"])
def test_a_bad_hint_is_one_clear_error(hint):
    with pytest.raises(ValueError, match="hint must be an integer N >= 1"):
        warm_start(SearchSettings(), 5_000, hint)


@settings(max_examples=400, deadline=None)
@given(threshold=st.integers(1, 70_000), pool=st.integers(1, 60_000),
       hint=st.integers(1, 200_000), n_start=st.integers(1, 50), growth=st.integers(2, 6),
       rtol=st.sampled_from([0.05, 0.1, 0.5]))
def test_monotone_outcomes_give_the_cold_result(threshold, pool, hint, n_start, growth, rtol):
    # Checked against the cold search itself: the same N*, bracket and end, whatever the hint.
    s = SearchSettings(n_start=n_start, growth=growth, rtol=rtol, max_search_steps=200)
    succeeds = lambda n: n >= threshold  # noqa: E731
    cold = search(succeeds, pool, s)
    warm = search(succeeds, pool, s, hint=hint)
    assert (warm.n_star, warm.largest_failing, warm.converged, warm.end) == \
        (cold.n_star, cold.largest_failing, cold.converged, cold.end)
    # Every probe it ran answered as the cold search's would have (one table of outcomes).
    assert all(p.success == succeeds(p.n) for p in warm.probes)


@pytest.mark.parametrize("threshold", [30, 700, 1_328, 3_000, 40_000])
def test_a_hint_near_n_star_saves_the_climb(threshold):
    s = SearchSettings(max_search_steps=200)
    succeeds = lambda n: n >= threshold  # noqa: E731
    cold = search(succeeds, 60_000, s)
    for hint in (threshold, int(threshold * 1.3), int(threshold / 1.3) + 1):
        warm = search(succeeds, 60_000, s, hint=hint)
        assert warm.num_probes <= cold.num_probes
        assert warm.total_steps <= cold.total_steps
    # The climb from 16 to N* is log_4(N*/16) probes; a hint at N* makes it two.
    warm = search(succeeds, 60_000, s, hint=threshold)
    climb = lambda r: [p.n for p in r.probes if p.n in (16 * 4 ** k for k in range(12))]  # noqa: E731
    assert len(climb(warm)) <= 2 < len(climb(cold)) or threshold <= 64


def test_a_lucky_success_below_a_failure_can_move_it():
    # Not monotone: 64 succeeds, 256 fails, 1,024 on succeed. The cold search stops its climb
    # at 64; a hint of 1,000 starts at 256 and climbs past it. What the bench counts.
    succeeds = lambda n: n == 64 or n >= 1_024  # noqa: E731
    s = SearchSettings(max_search_steps=200)
    assert search(succeeds, 60_000, s).n_star <= 64
    assert search(succeeds, 60_000, s, hint=1_000).n_star > 256


def test_a_hint_past_the_cap_probes_the_cap_first_and_its_failure_ends_the_search():
    s = SearchSettings(max_search_steps=200)
    never = TableProbe(lambda n: False)
    result = refined_search(never, 60_000, s, hint=60_000)
    assert never.calls == [60_000]
    assert (result.n_star, result.largest_failing, result.converged) == (None, 60_000, True)
    # A success there goes on from the climb's last point below the cap, 16,384.
    late = TableProbe(lambda n: n >= 20_000)
    result = refined_search(late, 60_000, s, hint=10**6)
    assert late.calls[:2] == [60_000, 16_384]
    assert 16_384 <= result.largest_failing < 20_000 <= result.n_star


def test_run_search_hands_the_hint_to_the_refined_search_only():
    succeeds = lambda n: n >= 2_000  # noqa: E731
    warm = TableProbe(succeeds)
    run_search(warm, 60_000, SearchSettings(), hint=2_000)
    assert warm.calls[0] == 4_096
    paper = TableProbe(succeeds)
    run_search(paper, 60_000, SearchSettings(mode="paper"), hint=2_000)
    assert paper.calls[0] == 60_000
