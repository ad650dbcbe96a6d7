"""Finite groups for the word problem, every one a permutation group.

Element ids are what the tokens are. Each element is a permutation in one-line notation
(``p[i]`` the image of ``i``), ``group.permutations[id]``, and ids follow the lexicographic
order of those tuples, so id 0 is the identity. Composition is ``(s o t)[i] = s[t[i]]``
(apply ``t`` first), for every group:

- Z_m acts on m points by rotation: id a is ``i -> i + a mod m``, so ids are residues and
  composing is adding (no table).
- S_k is every permutation of k points: ids in ``itertools.permutations(range(k))`` order.
- Any other group is a set of permutations closed under composition (`PermutationGroup`), its
  multiplication table computed once.
- G x H acts on deg G + deg H points, H's shifted past G's: id (g, h) is ``g * |H| + h``, the
  lexicographic order of the joined one-line notations, and composing is composing each part.

The named groups (A_k, D_n, Q8, products, groups from generators) are built in
``group_names``; their facts (solvable, nilpotent, ...) in ``group_facts``.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field

import numpy as np

MAX_SYMMETRIC_DEGREE = 6
# Entries of the multiplication table composed at once: bounds the table build's scratch
# memory whatever the group.
_TABLE_BLOCK_ENTRIES = 1 << 22


@dataclass(frozen=True)
class Group:
    """A finite group given by its multiplication rule on integer ids."""

    name: str
    order: int

    def compose(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Element-wise ``a o b`` on arrays of ids (``b`` applied first)."""
        raise NotImplementedError

    def element_names(self) -> list[str]:
        """One printable token string per element id, used by the tokenizer."""
        raise NotImplementedError

    @property
    def label(self) -> str:
        """How tables and cards write the group: Z_5, S_5, A_4xZ_5."""
        return self.name

    @property
    def degree(self) -> int:
        """The number of points the group's permutations act on."""
        raise NotImplementedError

    @property
    def permutations(self) -> tuple[tuple[int, ...], ...]:
        """Each id's permutation in one-line notation, in id order (lexicographic)."""
        raise NotImplementedError

    def table(self) -> np.ndarray:
        """The multiplication table ``[|G|, |G|]``: ``table[a, b]`` is the id of ``a o b``,
        composed a block of rows at a time (no |G|² array wider than the ids)."""
        n = self.order
        ids = np.arange(n, dtype=self.id_dtype)
        table = np.empty((n, n), dtype=self.id_dtype)
        block = max(1, _TABLE_BLOCK_ENTRIES // n)
        for start in range(0, n, block):
            table[start:start + block] = self.compose(ids[start:start + block, None], ids[None, :])
        return table

    @property
    def id_dtype(self) -> np.dtype:
        return np.dtype(np.uint8 if self.order <= 256 else np.uint16 if self.order <= 65536
                        else np.int64)

    def scan(self, elements: np.ndarray) -> np.ndarray:
        """States of a batch of words: ``s_1 = g_1``, ``s_i = g_i o s_{i-1}``.

        ``elements`` is ``[K, n]``; the loop runs over positions, never over examples.
        """
        states = np.empty_like(elements)
        if elements.shape[1] == 0:
            return states
        states[:, 0] = elements[:, 0]
        for i in range(1, elements.shape[1]):
            states[:, i] = self.compose(elements[:, i], states[:, i - 1])
        return states


def _name_permutation(p, degree: int) -> str:
    # One digit a point up to ten points (S_5's "10234"), dotted past that (D_12's "0.11.10...").
    return ("" if degree <= 10 else ".").join(str(x) for x in p)


@dataclass(frozen=True)
class CyclicGroup(Group):
    """Z_m: ids are residues, the operation is addition mod m (rotations of m points)."""

    def __init__(self, m: int):
        if not isinstance(m, (int, np.integer)) or m < 2:
            raise ValueError(f"Z_m needs an integer m >= 2, got m={m!r}")
        object.__setattr__(self, "name", f"Z{int(m)}")
        object.__setattr__(self, "order", int(m))

    def compose(self, a, b):
        # Widen before adding: uint8 residues near 255 would wrap.
        return ((np.asarray(a).astype(np.int64) + b) % self.order).astype(self.id_dtype)

    def element_names(self):
        return [str(i) for i in range(self.order)]

    @property
    def label(self) -> str:
        return f"Z_{self.order}"

    @property
    def degree(self) -> int:
        return self.order

    @property
    def permutations(self):
        m = self.order
        return tuple(tuple((a + i) % m for i in range(m)) for a in range(m))


def _sorted_rows(perms: np.ndarray) -> np.ndarray:
    """The rows of ``perms`` in lexicographic order."""
    return perms[np.lexsort(perms.T[::-1])]


def _row_hashes(rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    # A linear hash mod 2^64 (unsigned arithmetic wraps): distinct on the group's own rows,
    # which `_build_table` checks, so it names every product exactly.
    return (rows.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)


def _build_table(perms: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``table[s, t]`` = id of ``s o t`` for a closed set of permutations ``[n, d]`` in id order,
    each product found by a hash of its row.

    The hash of ``s o t`` is ``sum_i s[t[i]] w_i = sum_j s[j] w[t^-1[j]]`` (mod 2^64): one
    matrix product of the permutations with the weights each t moves, a block of rows of the
    table at a time, with no product written out point by point."""
    n, d = perms.shape
    rng = np.random.default_rng(0)
    for _ in range(4):
        weights = rng.integers(1, 2**63, size=d, dtype=np.uint64) | np.uint64(1)
        hashes = _row_hashes(perms, weights)
        order = np.argsort(hashes)
        if (np.diff(hashes[order]) != 0).all():
            break
    else:  # pragma: no cover - four colliding draws of 64-bit weights
        raise RuntimeError("could not hash the group's permutations apart")
    sorted_hashes = hashes[order]
    moved = weights[np.argsort(perms, axis=1)].T  # [d, n]: moved[j, t] = w[t^-1[j]]
    values = perms.astype(np.uint64)
    table = np.empty((n, n), dtype=dtype)
    block = max(1, _TABLE_BLOCK_ENTRIES // n)
    for start in range(0, n, block):
        products = values[start:start + block] @ moved  # [b, n] hashes of s o t
        found = np.searchsorted(sorted_hashes, products.ravel())
        table[start:start + block] = order[np.minimum(found, n - 1)].reshape(products.shape)
    return table


@dataclass(frozen=True)
class PermutationGroup(Group):
    """A group given as a set of permutations of one degree, closed under composition: ids in
    the lexicographic order of the permutations, the multiplication table computed once."""

    label_text: str = field(default="", compare=False)
    perms: np.ndarray = field(default=None, repr=False, compare=False)
    mult: np.ndarray = field(default=None, repr=False, compare=False)

    def __init__(self, name: str, permutations, label: str | None = None):
        perms = _sorted_rows(np.asarray(list(permutations), dtype=np.int64))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "order", len(perms))
        object.__setattr__(self, "label_text", label or name)
        object.__setattr__(self, "perms", perms)
        object.__setattr__(self, "mult", _build_table(perms, self.id_dtype))

    def compose(self, a, b):
        return self.mult[a, b]

    def table(self):
        return self.mult

    def element_names(self):
        return [_name_permutation(p, self.degree) for p in self.perms.tolist()]

    @property
    def label(self) -> str:
        return self.label_text

    @property
    def degree(self) -> int:
        return self.perms.shape[1]

    @property
    def permutations(self):
        return tuple(tuple(p) for p in self.perms.tolist())


class SymmetricGroup(PermutationGroup):
    """S_k: ids index the lexicographic list of permutations of range(k)."""

    def __init__(self, k: int, max_degree: int = MAX_SYMMETRIC_DEGREE):
        if not isinstance(k, (int, np.integer)) or not 2 <= k <= max_degree:
            raise ValueError(f"S_k needs an integer 2 <= k <= {max_degree}, got k={k!r}")
        super().__init__(f"S{int(k)}", itertools.permutations(range(int(k))), f"S_{int(k)}")

    @property
    def permutations(self):
        return tuple(itertools.permutations(range(self.degree)))


@dataclass(frozen=True)
class ProductGroup(Group):
    """G x H on deg G + deg H points: id (g, h) is ``g * |H| + h``, composed part by part."""

    left: Group = field(default=None, repr=False, compare=False)
    right: Group = field(default=None, repr=False, compare=False)

    def __init__(self, left: Group, right: Group):
        object.__setattr__(self, "name", f"{left.name}x{right.name}")
        object.__setattr__(self, "order", left.order * right.order)
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)

    def compose(self, a, b):
        k = self.right.order
        a, b = np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64)
        left = self.left.compose(a // k, b // k).astype(np.int64)
        right = self.right.compose(a % k, b % k).astype(np.int64)
        return (left * k + right).astype(self.id_dtype)

    def element_names(self):
        return [f"{g},{h}" for g in self.left.element_names() for h in self.right.element_names()]

    @property
    def label(self) -> str:
        return f"{self.left.label}x{self.right.label}"

    @property
    def degree(self) -> int:
        return self.left.degree + self.right.degree

    @property
    def permutations(self):
        shift = self.left.degree
        return tuple((*g, *(x + shift for x in h))
                     for g in self.left.permutations for h in self.right.permutations)


@functools.cache
def cyclic(m: int) -> CyclicGroup:
    return CyclicGroup(m)


@functools.cache
def symmetric(k: int) -> SymmetricGroup:
    return SymmetricGroup(k)
