"""Finite groups for the word problem: Z_m (commutative) and S_k (non-commutative).

Element ids are what the tokens are: for Z_m the residue, for S_k the index of the
permutation in the lexicographic order of ``itertools.permutations(range(k))`` (id 0 is
the identity). A permutation is a tuple ``p`` with ``p[i]`` the image of ``i``, and
composition is ``(s o t)[i] = s[t[i]]`` (apply ``t`` first).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field

import numpy as np

MAX_SYMMETRIC_DEGREE = 6


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


@dataclass(frozen=True)
class CyclicGroup(Group):
    """Z_m: ids are residues, the operation is addition mod m."""

    def __init__(self, m: int):
        if not isinstance(m, (int, np.integer)) or m < 2:
            raise ValueError(f"Z_m needs an integer m >= 2, got m={m!r}")
        object.__setattr__(self, "name", f"Z{int(m)}")
        object.__setattr__(self, "order", int(m))

    def compose(self, a, b):
        # Widen before adding: uint8 residues near 255 would wrap.
        return ((a.astype(np.int64) + b) % self.order).astype(self.id_dtype)

    def element_names(self):
        return [str(i) for i in range(self.order)]


@dataclass(frozen=True)
class SymmetricGroup(Group):
    """S_k: ids index the lexicographic list of permutations of range(k)."""

    degree: int = 0
    permutations: tuple = field(default=(), repr=False, compare=False)
    table: np.ndarray = field(default=None, repr=False, compare=False)

    def __init__(self, k: int):
        if not isinstance(k, (int, np.integer)) or not 2 <= k <= MAX_SYMMETRIC_DEGREE:
            raise ValueError(
                f"S_k needs an integer 2 <= k <= {MAX_SYMMETRIC_DEGREE}, got k={k!r}"
            )
        perms = tuple(itertools.permutations(range(int(k))))
        arr = np.array(perms)  # [|G|, k]
        # table[s, t] = id of s o t, where (s o t)[i] = s[t[i]].
        composed = arr[np.arange(len(perms))[:, None, None], arr[None, :, :]]  # [G, G, k]
        table = _lexicographic_rank(composed.reshape(-1, int(k))).reshape(len(perms), -1)
        object.__setattr__(self, "name", f"S{int(k)}")
        object.__setattr__(self, "order", math.factorial(int(k)))
        object.__setattr__(self, "degree", int(k))
        object.__setattr__(self, "permutations", perms)
        object.__setattr__(self, "table", table.astype(self.id_dtype))

    def compose(self, a, b):
        return self.table[a, b]

    def element_names(self):
        return ["".join(str(x) for x in p) for p in self.permutations]


def _lexicographic_rank(perms: np.ndarray) -> np.ndarray:
    """Index of each row of ``perms`` in ``itertools.permutations`` order (Lehmer code)."""
    k = perms.shape[1]
    rank = np.zeros(len(perms), dtype=np.int64)
    for i in range(k):
        smaller_later = (perms[:, i + 1:] < perms[:, i : i + 1]).sum(axis=1)
        rank += smaller_later * math.factorial(k - 1 - i)
    return rank


@functools.cache
def cyclic(m: int) -> CyclicGroup:
    return CyclicGroup(m)


@functools.cache
def symmetric(k: int) -> SymmetricGroup:
    return SymmetricGroup(k)
