"""Sampling words without replacement, and the train/validation/test split of a cell.

Every random choice comes from a local ``numpy.random.default_rng`` keyed by
(seed, purpose, group, length), so a cell is a pure function of (config, split, size,
seed). Each length n has ONE random order of its distinct words (a "stream"): the
validation set takes the first ``v_n`` words and the training set the words after them,
so validation never changes with the training size and training sets are nested.
Streams are prefix-stable: asking for more words never changes the earlier ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import TaskConfig
from .groups import CyclicGroup, Group

# Bumped whenever a change alters any generated example for an existing (config, seed).
GENERATOR_VERSION = "1.0.0"

VALIDATION_SIZE = 2000
VALIDATION_FRACTION = 0.2
TEST_SIZE = 2000
DEFAULT_TRAIN_SIZE = 100_000
SPLITS = ("train", "validation", "test")

# Pools up to this size are shuffled whole (exact, cheap); larger ones are drawn at
# random and de-duplicated. The choice depends on the pool alone, never on the request,
# so that a stream is the same whatever size is asked of it.
PERMUTATION_POOL_LIMIT = 1 << 22
FIRST_CHUNK = 1 << 16

_WORDS, _LENGTHS, _TEST = 0, 1, 2


def pool_size(group: Group, n: int) -> int:
    """Number of distinct words of length n: |G|^n (exact Python int)."""
    return group.order**n


def _seed_key(seed: int, purpose: int, group: Group, n: int) -> list[int]:
    kind = 0 if isinstance(group, CyclicGroup) else 1
    return [int(seed), purpose, kind, group.order, n]


def _decode(codes: np.ndarray, order: int, n: int, dtype) -> np.ndarray:
    """Base-|G| digits of word codes, most significant first: [K] -> [K, n]."""
    words = np.empty((len(codes), n), dtype=dtype)
    rest = codes.astype(np.int64)
    for j in range(n - 1, -1, -1):
        words[:, j] = rest % order
        rest //= order
    return words


def _first_occurrences(words: np.ndarray) -> np.ndarray:
    """Row indices of the first occurrence of each distinct row, in stream order."""
    rows = np.ascontiguousarray(words)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first = np.unique(keys, return_index=True)
    return np.sort(first)


def unique_words(group: Group, n: int, count: int, seed: int, purpose: int = _WORDS) -> np.ndarray:
    """The first ``count`` words of a random order of all |G|^n words: [count, n] ids."""
    pool = pool_size(group, n)
    if count > pool:
        raise ValueError(
            f"asked for {count} distinct words of length {n} over {group.name}, "
            f"but only {pool} exist"
        )
    rng = np.random.default_rng(_seed_key(seed, purpose, group, n))
    dtype = group.id_dtype
    if pool <= PERMUTATION_POOL_LIMIT:
        return _decode(rng.permutation(pool)[:count], group.order, n, dtype)
    chunks, size = [], FIRST_CHUNK
    while True:
        chunks.append(rng.integers(0, group.order, size=(size, n), dtype=dtype))
        words = np.concatenate(chunks) if len(chunks) > 1 else chunks[0]
        first = _first_occurrences(words)
        if len(first) >= count:
            return words[first[:count]]
        size *= 2


def validation_sizes(cfg: TaskConfig) -> dict[int, int]:
    """Validation examples per length: 2,000 in all, or 20% of the pool if smaller.

    Spread evenly over the lengths in play, never more than 20% of one length's pool
    (water-filling: what a small length cannot take goes to the longer ones). Every
    length keeps at least one example, so no validation set is ever empty.
    """
    caps = {n: max(1, int(pool_size(cfg.group, n) * VALIDATION_FRACTION)) for n in cfg.lengths}
    remaining = min(VALIDATION_SIZE, sum(caps.values()))
    sizes = dict.fromkeys(cfg.lengths, 0)
    order = sorted(cfg.lengths, key=lambda n: (caps[n], n))
    for i, n in enumerate(order):
        sizes[n] = min(caps[n], remaining // (len(order) - i))
        remaining -= sizes[n]
    for n in reversed(order):
        spare = min(caps[n] - sizes[n], remaining)
        sizes[n] += spare
        remaining -= spare
    return sizes


def train_pool_size(cfg: TaskConfig) -> int:
    """Distinct training examples available once validation has taken its share."""
    val = validation_sizes(cfg)
    return sum(pool_size(cfg.group, n) - val[n] for n in cfg.lengths)


@dataclass(frozen=True)
class Words:
    """A batch of words of possibly different lengths, right-padded with zeros."""

    elements: np.ndarray  # [K, max_n] group ids
    lengths: np.ndarray  # [K]

    def __len__(self) -> int:
        return len(self.lengths)


def _stack(parts: list[np.ndarray], dtype) -> Words:
    width = max((p.shape[1] for p in parts), default=0)
    out = np.zeros((sum(len(p) for p in parts), width), dtype=dtype)
    lengths = np.empty(len(out), dtype=np.int64)
    start = 0
    for p in parts:
        out[start : start + len(p), : p.shape[1]] = p
        lengths[start : start + len(p)] = p.shape[1]
        start += len(p)
    return Words(out, lengths)


def _uniform_lengths(cfg: TaskConfig, capacity: dict[int, int], count: int, seed: int):
    """Lengths drawn uniformly on 2..L; a draw of an exhausted length is dropped.

    Dropping is the same as redrawing among the lengths that still have words, and it
    keeps the sequence prefix-stable. Returns (lengths [count], rank within its length).
    """
    lengths = np.asarray(cfg.lengths)
    rng = np.random.default_rng(_seed_key(seed, _LENGTHS, cfg.group, cfg.max_len))
    draws, size = np.empty(0, dtype=np.int64), FIRST_CHUNK
    while True:
        draws = np.concatenate([draws, rng.choice(lengths, size=size)])
        rank = np.empty(len(draws), dtype=np.int64)
        for n in cfg.lengths:
            where = np.flatnonzero(draws == n)
            rank[where] = np.arange(len(where))
        keep = rank < _lookup(capacity, draws)
        if keep.sum() >= count:
            kept = np.flatnonzero(keep)[:count]
            return draws[kept], rank[kept]
        size *= 2


def _lookup(table: dict[int, int], keys: np.ndarray) -> np.ndarray:
    values = np.zeros(int(keys.max(initial=0)) + 1, dtype=np.int64)
    for k, v in table.items():
        # Pools such as 5^30 exceed int64; any count above 2^62 is unreachable anyway.
        values[k] = min(v, 1 << 62)
    return values[keys]


def sample_split(cfg: TaskConfig, split: str, size: int | None, seed: int) -> Words:
    """The words of one split of a cell.

    train: the first ``size`` words of the cell's training order (nested in ``size``);
    validation: the fixed validation set (``size`` ignored); test: ``size`` (default
    2,000, capped at the pool) words of length 2L.
    """
    group, dtype = cfg.group, cfg.group.id_dtype
    if split == "validation":
        val = validation_sizes(cfg)
        return _stack([unique_words(group, n, val[n], seed) for n in cfg.lengths], dtype)
    if split == "test":
        n = cfg.test_length
        count = min(TEST_SIZE, pool_size(group, n)) if size is None else size
        return _stack([unique_words(group, n, count, seed, purpose=_TEST)], dtype)
    if split != "train":
        raise ValueError(f"unknown split {split!r}; allowed: {', '.join(SPLITS)}")
    available = train_pool_size(cfg)
    size = min(DEFAULT_TRAIN_SIZE, available) if size is None else size
    if size < 0 or size > available:
        raise ValueError(
            f"{cfg.dataset}/{cfg}: asked for {size} training examples, but the pool holds "
            f"{available} distinct sequences once the validation set is set aside "
            f"(|G|={group.order}, lengths {cfg.lengths[0]}..{cfg.lengths[-1]})"
        )
    val = validation_sizes(cfg)
    capacity = {n: pool_size(group, n) - val[n] for n in cfg.lengths}
    if cfg.dist == "uniform":
        lengths, rank = _uniform_lengths(cfg, capacity, size, seed)
        words = np.zeros((size, cfg.max_len), dtype=dtype)
        for n in cfg.lengths:
            where = np.flatnonzero(lengths == n)
            if len(where):
                stream = unique_words(group, n, val[n] + int(rank[where].max()) + 1, seed)
                words[where, :n] = stream[val[n] + rank[where]]
        return Words(words, lengths.astype(np.int64))
    # fixed and s2l: every word of length n before any of length n + 1.
    parts, left = [], size
    for n in cfg.lengths:
        take = min(left, capacity[n])
        parts.append(unique_words(group, n, val[n] + take, seed)[val[n] :])
        left -= take
        if left == 0:
            break
    return _stack(parts, dtype)
