"""The `group` family: every group a permutation group in one canonical order, Z5 and S5 rows
equal to modadd's and permutation's, names and bounds refused in one line, groups from
generators (by call and by YAML file)."""

import itertools
import math
import time

import numpy as np
import pytest

from hf_induction import tasks
from hf_induction.tasks import group_names, sampling
from hf_induction.tasks.group_names import named, register_group, register_groups_file
from hf_induction.tasks.limits import (
    MAX_GENERATOR_POINTS,
    MAX_GROUP_ORDER,
    MAX_GROUPS_FILE_BYTES,
)
from tests.tasks.reference import compose_perm

NAMES = ["Z2", "Z12", "S3", "S4", "A4", "A5", "D3", "D6", "D30", "Q8", "Z2xZ2", "A4xZ5",
         "S4xZ5", "A5xZ2", "Z3xS3xZ2"]


@pytest.mark.parametrize("name", NAMES)
def test_ids_are_permutations_in_lexicographic_order_composed_by_hand(name):
    g = named(name)
    perms = g.permutations
    assert len(perms) == len(set(perms)) == g.order
    assert list(perms) == sorted(perms) and perms[0] == tuple(range(g.degree))
    assert all(sorted(p) == list(range(g.degree)) for p in perms)
    index = {p: i for i, p in enumerate(perms)}
    rng = np.random.default_rng(len(name))
    a, b = rng.integers(0, g.order, size=(2, 400))
    got = g.compose(a.astype(g.id_dtype), b.astype(g.id_dtype))
    expected = [index[compose_perm(perms[x], perms[y])] for x, y in zip(a, b, strict=True)]
    assert expected == got.tolist()
    names = g.element_names()
    assert len(set(names)) == g.order and not set(names) & set(tasks.SPECIAL_TOKENS)


@pytest.mark.parametrize("name, order", [("Z7", 7), ("S5", 120), ("A5", 60), ("D6", 12),
                                         ("Q8", 8), ("A4xZ5", 60), ("Z2xZ2xZ2", 8)])
def test_orders(name, order):
    assert named(name).order == order


def test_the_symmetric_and_cyclic_groups_are_the_families_own():
    assert named("S5").permutations == tuple(itertools.permutations(range(5)))
    assert named("S4").element_names() == tasks.symmetric(4).element_names()
    assert named("Z9").element_names() == tasks.cyclic(9).element_names()


@pytest.mark.parametrize("group_cell, old", [
    (("group", "acot_L5_Z5"), ("modadd", "acot_L5")),
    (("group", "cot_L4_uniform_S5"), ("permutation", "cot_L4_uniform")),
    (("group", "outcome_L3_s2l_Z7"), ("modadd", "outcome_L3_s2l_m7")),
    (("group", "acot_L4_S3"), ("permutation", "acot_L4_S3")),
])
def test_group_rows_are_modadd_and_permutation_rows(group_cell, old):
    new, before = tasks.parse(*group_cell), tasks.parse(*old)
    assert new.variant == before.variant and new.vocab == before.vocab
    for split in new.splits:
        size = 300 if split == "train" else None
        a, b = sampling.generate(new, split, size, 3), sampling.generate(before, split, size, 3)
        for column in ("input_ids", "labels", "lengths", "token_lengths"):
            assert np.array_equal(getattr(a, column), getattr(b, column)), (split, column)
        assert a.columns.keys() == b.columns.keys()
        assert all(np.array_equal(a.columns[k], b.columns[k]) for k in a.columns)


def test_states_are_composed_permutations():
    cell = tasks.parse("group", "acot_L6_A4xZ5")
    ex = sampling.generate(cell, "validation", None, 0)
    perms = cell.group.permutations
    index = {p: i for i, p in enumerate(perms)}
    for elements, states in zip(ex.elements[:50].tolist(), ex.states[:50].tolist(), strict=True):
        acc = perms[elements[0]]
        expected = [index[acc]]
        for g in elements[1:]:
            acc = compose_perm(perms[g], acc)
            expected.append(index[acc])
        assert states == expected


@pytest.mark.parametrize("name", ["acot_L10_A5", "cot_L5_uniform_D6", "outcome_L3_s2l_A4xZ5",
                                  "acot_L2_Q8"])
def test_names_round_trip(name):
    cell = tasks.parse("group", name)
    assert str(cell) == name and tasks.parse("group", str(cell)) == cell


@pytest.mark.parametrize("bad, words", [
    ("acot_L5", "cannot parse config name"),
    ("acot_L5_uniform", "cannot parse config name"),
    ("acot_L5_A2", "A{k} needs k >= 3"),
    ("acot_L5_D2", "D{n} needs n >= 3"),
    ("acot_L5_Z1", "Z{m} needs m >= 2"),
    ("acot_L5_Foo", "unknown group 'Foo'"),
    ("acot_L5_Z05", "unknown group 'Z05'"),
    ("acot_L5_S8", f"order 40320, more than {MAX_GROUP_ORDER}"),
    ("acot_L5_A7xS5", f"more than {MAX_GROUP_ORDER}"),
    # math.factorial overflowed past 2^63, and took minutes at 10^7 before any bound was asked.
    ("acot_L5_Z99999999999999999999", f"order 99999999999999999999, more than {MAX_GROUP_ORDER}"),
    ("acot_L5_S99999999999999999999", f"order 99999999999999999999!, more than "
                                      f"{MAX_GROUP_ORDER}"),
    ("acot_L5_A1000000", f"order 1000000!/2, more than {MAX_GROUP_ORDER}"),
    ("acot_L5_A9", f"order 9!/2, more than {MAX_GROUP_ORDER}"),
    ("acot_L5_A8", f"order 20160, more than {MAX_GROUP_ORDER}"),
    # int() refuses a string of more than 4,300 digits, in words of its own.
    (f"acot_L5_Z{'9' * 5000}", f"order past 10^4999, more than {MAX_GROUP_ORDER}"),
])
def test_bad_names_are_one_line(bad, words):
    with pytest.raises(ValueError, match=None) as e:
        tasks.parse("group", bad)
    assert words in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("name", ["acot_L5_Z300000", "acot_L5_D300000", "acot_L5_S300000"])
def test_a_huge_group_parameter_is_refused_before_anything_is_computed(name):
    # Every order was computed, n! included, before the bound was asked: 3 s at 300,000.
    started = time.perf_counter()
    with pytest.raises(ValueError, match="more than"):
        tasks.parse("group", name)
    assert time.perf_counter() - started < 0.5


def test_the_largest_groups_are_refused_for_their_table():
    with pytest.raises(ValueError, match="multiplication table"):
        named(f"Z{MAX_GROUP_ORDER + 1}")
    assert named(f"Z{MAX_GROUP_ORDER}").order == MAX_GROUP_ORDER


def test_generators_close_by_breadth_first_search():
    # The Klein four-group as double transpositions, and the Frobenius group of order 20.
    v4 = register_group("Klein", [[1, 0, 3, 2], [2, 3, 0, 1]])
    assert v4.order == 4 and tasks.parse("group", "acot_L3_Klein").group is v4
    f20 = register_group("Frob", [[1, 2, 3, 4, 0], [0, 2, 4, 1, 3]])
    assert f20.order == 20 and math.prod([4, 5]) == f20.order
    assert register_group("Klein", [[1, 0, 3, 2], [2, 3, 0, 1]]) is v4  # again: nothing new
    assert tasks.parse("group", "acot_L3_KleinxZ3").group.order == 12


@pytest.mark.parametrize("name, gens, words", [
    ("Klein", [[0, 1, 2, 3]], "already registered with other generators"),
    ("A5", [[1, 0]], "is built in"),
    ("lower", [[1, 0]], "bad group name"),
    ("TwoxTwo", [[1, 0]], "bad group name"),
    ("Bad", [], "non-empty list of generators"),
    ("Bad", [[1, 1, 0]], "not a permutation of 0..2"),
    ("Bad", [[2, 1, 3]], "points are numbered from 0"),
    ("Bad", [[1, 0], [1, 2, 0]], "act on different numbers of points"),
    ("Bad", [[0, 1, 2]], "has order 1"),
    ("Bad", [[1, 0, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 0]],
     f"do not close within {MAX_GROUP_ORDER}"),
    # A 5,000-cycle closes within the order bound, after 25 million point lookups.
    ("Bad", [[*range(1, 5000), 0]], f"list 5000 points in all, more than {MAX_GENERATOR_POINTS}"),
    ("Bad", [[1, 0] * 1024, [0, 1] * 1024, [1, 0]],
     "of degree 2, 2048 list 4098 points in all"),
])
def test_bad_generators_are_one_line(name, gens, words):
    register_group("Klein", [[1, 0, 3, 2], [2, 3, 0, 1]])
    with pytest.raises(ValueError) as e:
        register_group(name, gens)
    assert words in str(e.value) and "\n" not in str(e.value)
    assert "Bad" not in group_names.registered()


def test_groups_file(tmp_path):
    path = tmp_path / "groups.yaml"
    path.write_text("C2sq: [[1, 0, 3, 2], [2, 3, 0, 1]]\nCyc6: [[1, 2, 3, 4, 5, 0]]\n")
    assert register_groups_file(path) == ["C2sq", "Cyc6"]
    assert named("Cyc6").order == 6 and named("C2sq").order == 4
    bad = tmp_path / "bad.yaml"
    bad.write_text("Odd: [[1, 0]\n")
    with pytest.raises(ValueError, match=r"bad\.yaml, line 2"):
        register_groups_file(bad)
    bad.write_text("Odd: [[1, 1]]\n")
    with pytest.raises(ValueError, match=r"bad\.yaml: group Odd: generator \[1, 1\]"):
        register_groups_file(bad)


def test_a_groups_file_past_its_bound_is_refused_before_it_is_parsed(tmp_path):
    # One generator of degree 1,000,000 took the YAML reader a minute, then a MemoryError.
    path = tmp_path / "huge.yaml"
    path.write_text("Cyc7: [[1, 2, 3, 4, 5, 6, 0]]\n" + "#" * MAX_GROUPS_FILE_BYTES + "\n")
    with pytest.raises(ValueError) as e:
        register_groups_file(path)
    assert f"huge.yaml: {path.stat().st_size} bytes, more than {MAX_GROUPS_FILE_BYTES}" \
        in str(e.value)
    assert "Cyc7" not in group_names.registered()


def test_every_row_carries_its_groups_facts():
    from hf_induction.results.rows import cell_columns

    columns = cell_columns(tasks.parse("group", "acot_L5_A5"))
    assert columns["variant"] == "A_5" and columns["alphabet_size"] == 60
    assert (columns["solvable"], columns["word_problem"]) == (False, "NC1-complete")
    assert cell_columns(tasks.parse("modadd", "acot_L5"))["word_problem"] == "TC0"
    assert "solvable" not in cell_columns(tasks.parse("retrieval", "UR_L10"))
