"""Group names, and the one place a name becomes a `Group` (`named`).

A name is one factor or a product of factors joined by ``x`` (``A4xZ5``, ``Z2xZ2xZ2``,
read left to right). A factor is ``Z{m}`` (the cyclic group), ``S{k}`` (the symmetric group),
``A{k}`` (the alternating group), ``D{n}`` (the symmetries of the regular n-gon, order 2n),
``Q8`` (the quaternion group), or a name registered with its generators (`register_group`,
or a YAML file of ``name: [generators]`` read by `register_groups_file`).

Every group is built as permutations and closed by breadth-first search from generators
where it is not a whole symmetric or alternating group, so what a name means is computed,
never typed: D_n from the rotation ``i -> i + 1`` and the reflection ``i -> -i`` (mod n), Q8
from left multiplication by i and j on its eight elements. Every group is bounded by
`limits.MAX_GROUP_ORDER` (its multiplication table in memory).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from pathlib import Path

from .groups import CyclicGroup, Group, PermutationGroup, ProductGroup, SymmetricGroup
from .limits import (
    GENERATOR_POINTS_WHY,
    GROUP_ORDER_WHY,
    GROUPS_FILE_WHY,
    MAX_GENERATOR_POINTS,
    MAX_GROUP_ORDER,
    MAX_GROUPS_FILE_BYTES,
)

_FACTOR = re.compile(r"(?P<letter>[ZSAD])(?P<n>[1-9][0-9]*)|Q8")
# A registered name: a capital, then letters and digits without "x", which joins products.
_REGISTERED = re.compile(r"[A-Z][A-Za-wyz0-9]*")
GROUP_NAMES = (f"Z{{m}} (m >= 2), S{{k}} (k >= 2), A{{k}} (k >= 3), D{{n}} (the n-gon's "
               f"symmetries, n >= 3), Q8, products GxH (Z2xZ2, A4xZ5) or a name registered "
               f"with its generators; order 2..{MAX_GROUP_ORDER}")
GROUPS_FILE_EXPECTED = ("a YAML mapping of group name: [generators], each generator a "
                        "permutation of 0..d-1 in one-line notation, such as 'V4: [[1, 0, 3, 2], "
                        "[2, 3, 0, 1]]'")

# name -> its generators, as registered (a process-wide registry, as the Auto classes are).
_GENERATORS: dict[str, tuple[tuple[int, ...], ...]] = {}


def _too_large(name: str, order: int | str) -> ValueError:
    return ValueError(f"group {name} has order {order}, more than {MAX_GROUP_ORDER} "
                      f"({GROUP_ORDER_WHY})")


def close(name: str, generators: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """Every product of ``generators`` (the group they generate), by breadth-first search;
    ValueError in one line if they are not permutations of one degree, or generate more than
    `MAX_GROUP_ORDER` elements."""
    gens = _check_generators(name, generators)
    identity = tuple(range(len(gens[0])))
    seen, frontier = {identity}, [identity]
    while frontier:
        found = []
        for element in frontier:
            for g in gens:
                product = tuple(g[i] for i in element)  # g o element
                if product not in seen:
                    seen.add(product)
                    found.append(product)
                    if len(seen) > MAX_GROUP_ORDER:
                        raise ValueError(
                            f"the generators of {name} do not close within {MAX_GROUP_ORDER} "
                            f"elements ({GROUP_ORDER_WHY})")
        frontier = found
    return sorted(seen)


def _check_generators(name: str, generators) -> list[tuple[int, ...]]:
    if isinstance(generators, (str, bytes)) or not isinstance(generators, Sequence) \
            or not generators:
        raise ValueError(f"group {name}: expected a non-empty list of generators, got "
                         f"{generators!r}; each is a permutation of 0..d-1 in one-line notation")
    for g in generators:
        if isinstance(g, (str, bytes)) or not isinstance(g, Sequence):
            raise ValueError(f"group {name}: generator {g!r} is not a list of integers; each "
                             f"is a permutation of 0..d-1 in one-line notation")
    # Counted before a generator is read point by point: the closure's work and memory grow
    # with the points, and a degree of millions would run for minutes before failing.
    points = sum(len(g) for g in generators)
    if points > MAX_GENERATOR_POINTS:
        degrees = ", ".join(map(str, sorted({len(g) for g in generators})))
        raise ValueError(f"group {name}: its {len(generators)} generator(s) of degree {degrees} "
                         f"list {points} points in all, more than {MAX_GENERATOR_POINTS} "
                         f"({GENERATOR_POINTS_WHY})")
    gens = []
    for g in generators:
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in g):
            raise ValueError(f"group {name}: generator {g!r} is not a list of integers; each "
                             f"is a permutation of 0..d-1 in one-line notation")
        if sorted(g) != list(range(len(g))):
            hint = " (points are numbered from 0)" if sorted(g) == list(range(1, len(g) + 1)) \
                else ""
            raise ValueError(f"group {name}: generator {list(g)} is not a permutation of "
                             f"0..{len(g) - 1}{hint}")
        gens.append(tuple(g))
    degrees = sorted({len(g) for g in gens})
    if len(degrees) > 1:
        raise ValueError(f"group {name}: the generators act on different numbers of points "
                         f"({', '.join(map(str, degrees))}); all must be permutations of one "
                         f"degree")
    return gens


def _dihedral(n: int) -> list[tuple[int, ...]]:
    rotation = tuple((i + 1) % n for i in range(n))
    reflection = tuple((-i) % n for i in range(n))
    return close(f"D{n}", [rotation, reflection])


def _quaternion() -> list[tuple[int, ...]]:
    # The eight units ±1, ±i, ±j, ±k as (sign, unit) with unit 0..3 for 1, i, j, k, and the
    # group acting on them by left multiplication: its regular permutation representation.
    units = {(0, 0): (1, 0), (0, 1): (1, 1), (0, 2): (1, 2), (0, 3): (1, 3),
             (1, 0): (1, 1), (1, 1): (-1, 0), (1, 2): (1, 3), (1, 3): (-1, 2),
             (2, 0): (1, 2), (2, 1): (-1, 3), (2, 2): (-1, 0), (2, 3): (1, 1),
             (3, 0): (1, 3), (3, 1): (1, 2), (3, 2): (-1, 1), (3, 3): (-1, 0)}
    elements = [(s, u) for s in (1, -1) for u in range(4)]

    def left(unit: int) -> tuple[int, ...]:
        images = []
        for s, u in elements:
            sign, w = units[(unit, u)]
            images.append(elements.index((s * sign, w)))
        return tuple(images)

    return close("Q8", [left(1), left(2)])


def _factor(text: str) -> Group:
    """One factor of a name; ValueError naming it if the grammar or the bounds refuse it."""
    if text in _GENERATORS:
        return PermutationGroup(text, close(text, _GENERATORS[text]))
    match = _FACTOR.fullmatch(text)
    if match is None:
        raise ValueError(f"unknown group {text!r}; a group is {GROUP_NAMES}")
    if text == "Q8":
        return PermutationGroup("Q8", _quaternion(), "Q_8")
    letter, digits = match["letter"], match["n"]
    # Past the bound by its digits alone, whatever its letter: int() refuses past 4,300.
    if len(digits) > 100:
        raise _too_large(text, f"past 10^{len(digits) - 1}")
    n = int(digits)
    least = {"Z": 2, "S": 2, "A": 3, "D": 3}[letter]
    if n < least:
        symbol = {"Z": "m", "S": "k", "A": "k", "D": "n"}[letter]
        raise ValueError(f"bad group {text!r}: {letter}{{{symbol}}} needs {symbol} >= {least}; a "
                         f"group is {GROUP_NAMES}")
    order = _order(letter, n)
    if order is None or order > MAX_GROUP_ORDER:
        raise _too_large(text, order or f"{n}!{'/2' if letter == 'A' else ''}")
    if letter == "Z":
        return CyclicGroup(n)
    if letter == "S":
        return SymmetricGroup(n, max_degree=n)
    if letter == "A":
        return PermutationGroup(text, [p for p in itertools.permutations(range(n))
                                       if _even(p)], f"A_{n}")
    return PermutationGroup(text, _dihedral(n), f"D_{n}")


def _order(letter: str, n: int) -> int | None:
    """|Z_n| = n, |D_n| = 2n, |S_n| = n!, |A_n| = n!/2; None for a factorial past
    `MAX_GROUP_ORDER`, which is counted only that far: math.factorial takes seconds at
    n = 10^6, minutes at 10^7, and overflows past 2^63."""
    if letter in "ZD":
        return n if letter == "Z" else 2 * n
    factorial, k = 1, 1
    while k < n and factorial <= 2 * MAX_GROUP_ORDER:
        k += 1
        factorial *= k
    if k < n:
        return None
    return factorial // 2 if letter == "A" else factorial


def _even(p: tuple[int, ...]) -> bool:
    return sum(1 for i, j in itertools.combinations(range(len(p)), 2) if p[i] > p[j]) % 2 == 0


@functools.cache
def named(name: str) -> Group:
    """The group ``name`` (``A5``, ``A4xZ5``, a registered name); ValueError in one line naming
    what is wrong and what is allowed."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"expected a group name, got {name!r}; a group is {GROUP_NAMES}")
    parts = name.split("x")
    order = 1
    group: Group | None = None
    for part in parts:
        factor = _factor(part)
        order *= factor.order
        if order > MAX_GROUP_ORDER:
            raise _too_large(name, order)
        group = factor if group is None else ProductGroup(group, factor)
    if group.order < 2:
        raise ValueError(f"group {name} has order 1; a word problem needs at least 2 elements")
    return group


def register_group(name: str, generators: Sequence[Sequence[int]]) -> Group:
    """Make ``name`` mean the group the permutations ``generators`` generate (one-line
    notation on 0..d-1), for cells such as ``acot_L5_{name}``; returns it. Registering a name
    again with the same generators does nothing; other generators are refused."""
    if not isinstance(name, str) or not _REGISTERED.fullmatch(name):
        raise ValueError(f"bad group name {name!r}: a capital letter, then letters and digits "
                         f"without 'x' (it joins a product), e.g. M11 or PSL27")
    if name not in _GENERATORS and _FACTOR.fullmatch(name):
        raise ValueError(f"group name {name!r} is built in ({GROUP_NAMES}); choose another")
    gens = tuple(_check_generators(name, generators))
    if _GENERATORS.get(name, gens) != gens:
        raise ValueError(f"group {name} is already registered with other generators")
    elements = close(name, gens)
    if len(elements) < 2:
        raise ValueError(f"group {name} has order 1; a word problem needs at least 2 elements")
    _GENERATORS[name] = gens
    return named(name)


def register_groups_file(path: str | Path) -> list[str]:
    """Register every group of a YAML file of ``name: [generators]``; returns the names."""
    from ..yaml_files import read_yaml

    spec = read_yaml(path, GROUPS_FILE_EXPECTED,
                     max_bytes=(MAX_GROUPS_FILE_BYTES, GROUPS_FILE_WHY))
    if not isinstance(spec, dict) or not spec:
        raise ValueError(f"{path}: expected {GROUPS_FILE_EXPECTED}")
    for name, generators in spec.items():
        try:
            register_group(name, generators)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
    return list(spec)


def registered() -> dict[str, tuple[tuple[int, ...], ...]]:
    """Every registered name and its generators (what a results folder records)."""
    return dict(_GENERATORS)


def registered_from(path: str | Path | None) -> dict[str, tuple[tuple[int, ...], ...]]:
    """Register the groups of the YAML file ``path`` (`register_groups_file`; None: none) and
    return them, name -> generators, to record beside the results."""
    if path is None:
        return {}
    names = register_groups_file(path)
    return {name: gens for name, gens in _GENERATORS.items() if name in names}
