"""Copy roles: which input position each role names, checked against the rows' tokens, and the
roles read back from planted heads."""

import numpy as np
import pytest

from hf_induction.analysis.copy_roles import ROLES, copy_attention, copy_roles, source_position
from hf_induction.tasks import generate, parse
from tests.analysis import planted


@pytest.mark.parametrize("task", ["UF", "UB"])
def test_source_and_occurrence_positions_hold_the_tokens(task):
    # By brute force on real rows: the token at the source position is the label y_j, and the
    # token at the occurrence is the one at t = n + j.
    ex = generate(parse("copy", f"{task}_L8"), "validation", None, 0)
    for ids, n in zip(ex.input_ids[:50], ex.lengths[:50], strict=True):
        for j in range(2, n + 1):
            t = n + j
            assert ids[source_position(n, j, task == "UB")] == ids[t + 1]
            assert ids[source_position(n, j - 1, task == "UB")] == ids[t]


def _attention_on(n: int, key_of_j) -> np.ndarray:
    """[1 layer, 1 row, 1 head, T, T] weights, all on ``key_of_j(j)`` at each t = n + j."""
    T = 2 * n + 3
    att = np.zeros((1, 1, 1, T, T))
    for j in range(1, n + 1):
        att[0, 0, 0, n + j, key_of_j(j)] = 1.0
    return att


@pytest.mark.parametrize("backward", [False, True])
def test_roles_of_attention_on_one_key(backward):
    n = 6
    on_source = copy_roles(_attention_on(n, lambda j: source_position(n, j, backward)), n,
                           backward)
    assert on_source["source"][0, 0] == 1.0 and on_source["occurrence"][0, 0] == 0.0
    assert on_source["copied"][0, 0] == 0.0
    # Per key over the n + 1 - j symbols still to copy at j = 2..n.
    assert on_source["to_copy"][0, 0] == pytest.approx(np.mean([1 / (n + 1 - j)
                                                                for j in range(2, n + 1)]))
    on_occurrence = copy_roles(_attention_on(n, lambda j: source_position(n, j - 1, backward)),
                               n, backward)
    assert on_occurrence["occurrence"][0, 0] == 1.0 and on_occurrence["source"][0, 0] == 0.0
    assert on_occurrence["to_copy"][0, 0] == 0.0
    assert on_occurrence["copied"][0, 0] == pytest.approx(np.mean([1 / (j - 1)
                                                                   for j in range(2, n + 1)]))
    on_separator = copy_roles(_attention_on(n, lambda j: n + 1), n, backward)
    assert on_separator["separator"][0, 0] == 1.0
    assert sum(on_separator[r][0, 0] for r in ROLES) == 1.0


def test_planted_heads_read_back():
    uf = generate(parse("copy", "UF_L4_uniform_V12"), "validation", None, 0)
    parts = copy_attention(planted.induction_model(), uf.input_ids, uf.lengths, backward=False)
    assert [p.n for p in parts] == [2, 3, 4]
    for p in parts:
        # Layer 1 head 0 is the induction head: all its weight on the source; the model copies.
        assert p.roles["source"][1, 0] > 0.99 and p.roles["copied"][1, 0] < 0.01
        assert p.accuracy.shape == (p.n,) and p.accuracy.min() == 1.0
    ub = generate(parse("copy", "UB_L4_V12"), "validation", None, 0)
    for p in copy_attention(planted.anti_induction_model(4), ub.input_ids, ub.lengths,
                            backward=True):
        # The duplicate-token head of the anti-induction circuit reads the occurrence.
        assert p.roles["occurrence"][1, 0] > 0.99 and p.roles["source"][1, 0] < 0.01


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="n >= 2"):
        copy_roles(np.zeros((1, 1, 1, 5, 5)), 1, False)
    with pytest.raises(ValueError, match="T >= 2n"):
        copy_roles(np.zeros((1, 1, 1, 5, 5)), 4, False)
