"""Each group's facts against a brute force written apart from `group_facts`: Python tuples
composed by hand, conjugacy classes as orbits (not Burnside's count), series by closing
commutator sets; and against what theory says of whole families, computed (partitions of k,
powers of two), not typed."""

import itertools
import math

import pytest

from hf_induction.tasks.group_facts import facts
from hf_induction.tasks.group_names import named
from tests.tasks.reference import compose_perm


def brute_facts(perms):
    perms = [tuple(p) for p in perms]
    index = {p: i for i, p in enumerate(perms)}
    n = len(perms)
    identity = index[tuple(range(len(perms[0])))]
    mul = [[index[compose_perm(a, b)] for b in perms] for a in perms]
    inv = [next(j for j in range(n) if mul[i][j] == identity) for i in range(n)]

    def subgroup(gens):
        seen, frontier = {identity}, [identity]
        while frontier:
            frontier = [x for x in {mul[g][e] for e in frontier for g in gens} if x not in seen]
            seen.update(frontier)
        return frozenset(seen)

    def commutator(h, k):
        return subgroup({mul[mul[mul[a][b]][inv[a]]][inv[b]] for a in h for b in k})

    def series(step):
        terms = [frozenset(range(n))]
        while (nxt := step(terms[-1])) != terms[-1]:
            terms.append(nxt)
        return terms

    def order_of(g):
        k, x = 1, g
        while x != identity:
            x, k = mul[g][x], k + 1
        return k

    classes = {frozenset(mul[mul[h][g]][inv[h]] for h in range(n)) for g in range(n)}
    derived = series(lambda h: commutator(h, h))
    central = series(lambda h: commutator(h, range(n)))
    return {"order": n,
            "abelian": all(mul[a][b] == mul[b][a] for a in range(n) for b in range(n)),
            "solvable": len(derived[-1]) == 1, "nilpotent": len(central[-1]) == 1,
            "exponent": math.lcm(*(order_of(g) for g in range(n))),
            "conjugacy_classes": len(classes),
            "derived_series": tuple(len(t) for t in derived)}


def named_groups(max_order, cyclic=None):
    names = [f"Z{m}" for m in (cyclic or range(2, max_order + 1))]
    names += [f"S{k}" for k in range(2, 6)] + [f"A{k}" for k in range(3, 6)]
    names += [f"D{n}" for n in range(3, max_order // 2 + 1)] + ["Q8"]
    names += ["Z2xZ2", "Z2xZ2xZ2", "S3xZ2", "Q8xZ3", "D4xZ2", "A4xZ5", "S4xZ5", "A5xZ2", "Z3xS3"]
    return [n for n in names if named(n).order <= max_order]


def _check(name):
    group = named(name)
    got = facts(group)
    expected = brute_facts(group.permutations)
    assert {k: getattr(got, k) for k in expected} == expected, name
    assert got.word_problem == ("TC0" if expected["solvable"] else "NC1-complete")


@pytest.mark.parametrize("name", named_groups(120, cyclic=[*range(2, 13), 30, 60, 120]))
def test_facts_equal_brute_force(name):
    _check(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", [f"Z{m}" for m in range(13, 121) if m not in (30, 60, 120)])
def test_facts_equal_brute_force_every_cyclic_group(name):
    _check(name)


def partitions(k):
    return sum(1 for _ in _partitions(k, k))


def _partitions(k, largest):
    if k == 0:
        yield ()
        return
    for first in range(min(k, largest), 0, -1):
        for rest in _partitions(k - first, first):
            yield (first, *rest)


@pytest.mark.parametrize("k", range(2, 7))
def test_symmetric_and_alternating_groups_by_theory(k):
    s = facts(named(f"S{k}"))
    assert s.order == math.factorial(k) and s.conjugacy_classes == partitions(k)
    assert s.solvable == (k <= 4) and s.nilpotent == (k == 2)
    # The exponent of S_k is lcm(1..k): a cycle of every length up to k.
    assert s.exponent == math.lcm(*range(1, k + 1))
    if k >= 3:
        a = facts(named(f"A{k}"))
        assert a.order == math.factorial(k) // 2 and a.solvable == (k <= 4)
        assert a.word_problem == ("TC0" if k <= 4 else "NC1-complete")


@pytest.mark.parametrize("n", range(3, 25))
def test_dihedral_groups_by_theory(n):
    f = facts(named(f"D{n}"))
    assert f.order == 2 * n and f.solvable and not f.abelian
    assert f.nilpotent == (n & (n - 1) == 0)  # nilpotent exactly when n is a power of two
    assert f.conjugacy_classes == ((n + 3) // 2 if n % 2 else n // 2 + 3)
    assert f.exponent == math.lcm(n, 2)


@pytest.mark.parametrize("m", [2, 3, 12, 60, 97, 120])
def test_cyclic_groups_by_theory(m):
    f = facts(named(f"Z{m}"))
    assert (f.abelian, f.nilpotent, f.exponent, f.conjugacy_classes) == (True, True, m, m)


def test_products_multiply_what_their_factors_have():
    for left, right in itertools.combinations(["Z2", "S3", "A4", "Q8", "D5"], 2):
        a, b, ab = facts(named(left)), facts(named(right)), facts(named(f"{left}x{right}"))
        assert ab.order == a.order * b.order
        assert ab.conjugacy_classes == a.conjugacy_classes * b.conjugacy_classes
        assert ab.exponent == math.lcm(a.exponent, b.exponent)
        assert ab.solvable == (a.solvable and b.solvable)
        assert ab.abelian == (a.abelian and b.abelian)


def test_the_line_at_orders_12_60_and_120():
    """The campaign's groups: which side of TC0 / NC1 each sits on."""
    sides = {name: facts(named(name)).word_problem
             for name in ["Z12", "D6", "A4", "Z60", "D30", "A4xZ5", "A5", "Z120", "S4xZ5", "S5",
                          "A5xZ2"]}
    assert [n for n, side in sides.items() if side == "NC1-complete"] == ["A5", "S5", "A5xZ2"]
