import itertools
import math

import numpy as np
import pytest

from hf_induction.tasks import CyclicGroup, SymmetricGroup, cyclic, symmetric
from tests.tasks.reference import compose_perm


@pytest.mark.parametrize("k", [2, 3, 4, 5], ids=lambda k: f"S{k}")
def test_symmetric_table_is_explicit_composition(k):
    g = symmetric(k)
    perms = list(itertools.permutations(range(k)))
    assert g.order == math.factorial(k) == len(perms)
    assert perms[0] == tuple(range(k))
    rng = np.random.default_rng(k)
    for a, b in rng.integers(0, g.order, size=(300, 2)):
        expected = perms.index(compose_perm(perms[a], perms[b]))
        assert g.compose(np.array([a]), np.array([b]))[0] == expected


def test_symmetric_identity_and_non_commutative():
    g = symmetric(5)
    ids = np.arange(g.order)
    assert (g.compose(ids, np.zeros_like(ids)) == ids).all()
    assert (g.compose(np.zeros_like(ids), ids) == ids).all()
    a, b = np.meshgrid(ids, ids)
    assert (g.compose(a, b) != g.compose(b, a)).any()


def test_element_names():
    assert symmetric(3).element_names()[1] == "021"
    assert cyclic(12).element_names()[11] == "11"


@pytest.mark.parametrize("m", [2, 5, 100, 300])
def test_cyclic_compose_is_addition(m):
    g = CyclicGroup(m)
    a = np.arange(m, dtype=g.id_dtype)
    b = a[::-1].copy()
    assert ((g.compose(a, b).astype(int)) == (a.astype(int) + b) % m).all()


@pytest.mark.parametrize("bad", [0, 1, -3])
def test_cyclic_rejects_bad_modulus(bad):
    with pytest.raises(ValueError, match="m >= 2"):
        CyclicGroup(bad)


@pytest.mark.parametrize("bad", [1, 7])
def test_symmetric_rejects_bad_degree(bad):
    with pytest.raises(ValueError, match="2 <= k <= 6"):
        SymmetricGroup(bad)
