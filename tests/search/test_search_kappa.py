"""κ = Σ N*_n / N*_joint, and its bounds from search brackets."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hf_induction.search import kappa, kappa_bounds


def test_kappa_arithmetic():
    assert kappa({2: 10, 3: 20, 4: 30}, 20) == 3.0
    assert kappa({5: 7}, 7) == 1.0
    assert kappa({2: 1, 3: 1}, 4) == 0.5


def test_kappa_is_nan_when_some_nstar_is_unknown():
    assert math.isnan(kappa({2: 10, 3: None}, 5))
    assert math.isnan(kappa({2: 10}, None))
    with pytest.raises(ValueError):
        kappa({}, 5)


def test_bounds_of_exact_brackets_equal_kappa():
    assert kappa_bounds({2: (9, 10), 3: (19, 20)}, (14, 15)) == (2.0, 2.0)


def test_bounds_with_open_brackets():
    # N*_3 is beyond its cap of 100: κ has no upper bound.
    low, high = kappa_bounds({2: (9, 10), 3: (100, None)}, (14, 15))
    assert low == (10 + 101) / 15 and high == math.inf
    # N*_joint beyond its cap: κ may be arbitrarily small.
    low, high = kappa_bounds({2: (9, 10)}, (500, None))
    assert low == 0.0 and high == 10 / 501
    # An unknown largest failure only says N* >= 1.
    assert kappa_bounds({2: (None, 4)}, (None, 2)) == (0.5, 4.0)


@given(
    brackets=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(1, 10**6)), min_size=1, max_size=12
    ),
    joint=st.tuples(st.integers(0, 10**6), st.integers(1, 10**6)),
    pick=st.floats(0, 1),
)
def test_kappa_of_any_value_in_the_brackets_lies_within_the_bounds(brackets, joint, pick):
    def bracket(lo, width):
        return lo, lo + width

    by_length = {n: bracket(*b) for n, b in enumerate(brackets, start=2)}
    joint_bracket = bracket(*joint)

    def inside(lo, hi):
        return lo + 1 + round(pick * (hi - lo - 1))

    true = kappa({n: inside(*b) for n, b in by_length.items()}, inside(*joint_bracket))
    low, high = kappa_bounds(by_length, joint_bracket)
    assert low <= true * (1 + 1e-12) and true <= high * (1 + 1e-12)
