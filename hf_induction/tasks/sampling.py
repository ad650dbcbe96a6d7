"""Sampling items without replacement, and the train/validation/test splits of a cell.

Every random choice comes from a local ``numpy.random.default_rng`` keyed by
(seed, purpose, the pool's key), so a cell is a pure function of (config, split, size,
seed). Each length n has ONE random order of its distinct items (a "stream", the family's
`TaskCell.stream`): the validation set takes the first ``v_n`` items and the training set
the items after them, so validation never changes with the training size and training sets
are nested. Streams are prefix-stable: asking for more items never changes the earlier ones.
Test splits hold other lengths than training, so they are disjoint from it by construction.

Two validation rules (`VALIDATION_RULES`) say how the validation set relates to training:
``disjoint`` (the default) sets the first ``v_n`` items of each stream aside, so no
training set ever holds a validation word; ``in-distribution`` draws the validation set from
the training law on a stream of its own and leaves the whole pool to training, so a training
set may hold validation words and one that covers the pool holds them all (the papers' "training
and evaluation distributions match").
"""

from __future__ import annotations

import numpy as np

from .cell import Examples, TaskCell
from .limits import FIRST_CHUNK, check_rows

# Bumped whenever a change alters any generated example for an existing (config, seed).
GENERATOR_VERSION = "1.0.0"

VALIDATION_SIZE = 2000
VALIDATION_FRACTION = 0.2
TEST_SIZE = 2000
DEFAULT_TRAIN_SIZE = 100_000
SPLITS = ("train", "validation", "test")

# Pools up to this size are enumerated and shuffled whole (exact, cheap); larger ones are
# drawn at random and de-duplicated. The choice depends on the pool alone, never on the
# request, so that a stream is the same whatever size is asked of it.
PERMUTATION_POOL_LIMIT = 1 << 22

# What a random stream is drawn for: one generator per (seed, purpose, pool).
WORDS, LENGTHS, TEST, VALIDATION = 0, 1, 2, 3

# How the validation set relates to the training rows (the module's docstring).
DISJOINT, IN_DISTRIBUTION = "disjoint", "in-distribution"
VALIDATION_RULES = (DISJOINT, IN_DISTRIBUTION)


def check_validation_rule(rule: object) -> str:
    """``rule`` if it is one of `VALIDATION_RULES`, else ValueError in one line."""
    if rule not in VALIDATION_RULES:
        raise ValueError(f"unknown validation rule {rule!r}; allowed: "
                         f"{', '.join(VALIDATION_RULES)}")
    return rule


def first_occurrences_reference(rows: np.ndarray) -> np.ndarray:
    """Row indices of the first occurrence of each distinct row, in stream order: the
    reference `first_occurrences` must equal (a sort of the rows as byte strings)."""
    rows = np.ascontiguousarray(rows)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first = np.unique(keys, return_index=True)
    return np.sort(first)


def _row_hashes(rows: np.ndarray) -> np.ndarray:
    """A 64-bit polynomial hash per row (wrapping uint64 arithmetic)."""
    h = np.zeros(len(rows), dtype=np.uint64)
    multiplier = np.uint64(0x9E3779B97F4A7C15)
    column = np.empty(len(rows), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(rows.shape[1]):
            h *= multiplier
            column[:] = rows[:, j]
            h += column
            h += np.uint64(1)
    return h


def first_occurrences(rows: np.ndarray, hashes: np.ndarray | None = None) -> np.ndarray:
    """`first_occurrences_reference`, sorting 64-bit row hashes instead of byte strings
    (8 bytes a row instead of one per item, and an integer sort: a paper-size draw of 16M
    words of length 30 is deduplicated in seconds). Rows with equal hashes are compared
    whole; if any two differ (a true collision, about 1 in 10^5 at 16M rows) the reference
    decides. ``hashes``, if given, are ``_row_hashes(rows)``, computed earlier."""
    if rows.ndim != 2 or rows.shape[1] == 0 or len(rows) < 2:
        return first_occurrences_reference(rows)
    h = _row_hashes(rows) if hashes is None else hashes
    order = np.argsort(h, kind="stable")  # equal hashes keep stream order
    sorted_h = h[order]
    same = sorted_h[1:] == sorted_h[:-1]
    pairs = np.flatnonzero(same)
    if len(pairs) and not (rows[order[pairs + 1]] == rows[order[pairs]]).all():
        return first_occurrences_reference(rows)
    return np.sort(order[np.concatenate([[True], ~same])])


def distinct_draws(draw, count: int, rng: np.random.Generator,
                   first: int = FIRST_CHUNK) -> np.ndarray:
    """The first ``count`` distinct rows of the draws ``draw(rng, size)`` makes, in doubling
    chunks from one generator (prefix-stable: more rows never change the earlier ones).
    ``first`` is the first chunk's size, fixed by the family (not by ``count``, or the rows
    would change with it): a family of long rows asks for a small one, so that a test split's
    few rows a length do not cost a full chunk each."""
    chunks, hashes, size = [], [], first
    while True:
        chunks.append(draw(rng, size))
        hashes.append(_row_hashes(chunks[-1]) if chunks[-1].ndim == 2 else None)
        # Keep one copy of the rows so far (a paper-size draw is 500 MB of int8).
        chunks = [np.concatenate(chunks) if len(chunks) > 1 else chunks[0]]
        if hashes[-1] is not None:
            hashes = [np.concatenate(hashes) if len(hashes) > 1 else hashes[0]]
        rows = chunks[0]
        first = first_occurrences(rows, hashes[0])
        if len(first) >= count:
            return rows[first[:count]]
        size *= 2


def _rng(cell: TaskCell, seed: int, purpose: int, n: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), purpose, *cell.stream_key(n)])


def stream(cell: TaskCell, n: int, count: int, seed: int, purpose: int = WORDS) -> np.ndarray:
    """The first ``count`` items of the stream of length n: ``[count, item_width(n)]``."""
    pool = cell.pool_size(n)
    if count > pool:
        raise ValueError(
            f"{cell.dataset}/{cell}: asked for {count} distinct items of length {n}, but only "
            f"{pool} exist"
        )
    return cell.stream(n, count, _rng(cell, seed, purpose, n))


def _spread(total: int, caps: dict[int, int]) -> dict[int, int]:
    """``total`` examples over the lengths of ``caps``: evenly, never more than a length's
    cap (water-filling: what a small length cannot take goes to the longer ones)."""
    remaining = min(total, sum(caps.values()))
    sizes = dict.fromkeys(caps, 0)
    order = sorted(caps, key=lambda n: (caps[n], n))
    for i, n in enumerate(order):
        sizes[n] = min(caps[n], remaining // (len(order) - i))
        remaining -= sizes[n]
    for n in reversed(order):
        spare = min(caps[n] - sizes[n], remaining)
        sizes[n] += spare
        remaining -= spare
    return sizes


def validation_sizes(cell: TaskCell, rule: str = DISJOINT) -> dict[int, int]:
    """Validation examples per length, spread evenly over the lengths in play (a length whose
    share its cap cannot hold gives the rest to the others).

    ``disjoint``: 2,000 in all, never more than 20% of one length's pool, and every length
    keeps at least one example, so no validation set is ever empty. ``in-distribution``:
    2,000 distinct rows, capped by each length's whole pool: the counts a draw of 2,000
    distinct rows by the training law gives (a short length's pool used up, its share goes to
    the longer ones), so a pool smaller than its share is validated whole (Z_5 at length 2:
    its 25 words). Whole, not drawn with replacement: a repeated row would weigh one word
    twice in the loss, and the whole pool already is the law's every word at equal weight.
    """
    # Pools such as 5^500 overflow a float; a cap above 2^62 is the same as any other above
    # the 2,000 rows asked, so the pool is clamped there first (as in `_lookup`).
    if check_validation_rule(rule) == IN_DISTRIBUTION:
        caps = {n: min(cell.pool_size(n), 1 << 62) for n in cell.lengths}
    else:
        caps = {n: max(1, int(min(cell.pool_size(n), 1 << 62) * VALIDATION_FRACTION))
                for n in cell.lengths}
    return _spread(VALIDATION_SIZE, caps)


def test_sizes(cell: TaskCell, split: str, size: int | None = None) -> dict[int, int]:
    """Rows per length of a test split: ``size`` (default 2,000) spread over its lengths,
    capped by each length's pool."""
    caps = {n: cell.pool_size(n) for n in cell.test_splits[split]}
    return _spread(TEST_SIZE if size is None else size, caps)


def _set_aside(cell: TaskCell, rule: str) -> dict[int, int]:
    """Items of each length's stream that training skips: the disjoint validation set's."""
    if check_validation_rule(rule) == IN_DISTRIBUTION:
        return dict.fromkeys(cell.lengths, 0)
    return validation_sizes(cell, rule)


def train_pool_size(cell: TaskCell, rule: str = DISJOINT) -> int:
    """Distinct training examples available: the whole pool, less the validation set under
    the ``disjoint`` rule."""
    skip = _set_aside(cell, rule)
    return sum(cell.pool_size(n) - skip[n] for n in cell.lengths)


def _stack(cell: TaskCell, parts: list[tuple[int, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Items of possibly different lengths, right-padded with zeros, and their lengths."""
    width = max((p.shape[1] for _, p in parts), default=0)
    dtype = parts[0][1].dtype if parts else np.int64
    out = np.zeros((sum(len(p) for _, p in parts), width), dtype=dtype)
    lengths = np.empty(len(out), dtype=np.int64)
    start = 0
    for n, p in parts:
        out[start : start + len(p), : p.shape[1]] = p
        lengths[start : start + len(p)] = n
        start += len(p)
    return out, lengths


def _uniform_lengths(cell: TaskCell, capacity: dict[int, int], count: int, seed: int):
    """Lengths drawn uniformly on the lengths in play; a draw of an exhausted length is dropped.

    Dropping is the same as redrawing among the lengths that still have items, and it
    keeps the sequence prefix-stable. Returns (lengths [count], rank within its length).
    """
    lengths = np.asarray(cell.lengths)
    rng = _rng(cell, seed, LENGTHS, cell.max_len)
    draws, size = np.empty(0, dtype=np.int64), FIRST_CHUNK
    while True:
        draws = np.concatenate([draws, rng.choice(lengths, size=size)])
        rank = np.empty(len(draws), dtype=np.int64)
        for n in cell.lengths:
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


def sample_split(cell: TaskCell, split: str, size: int | None, seed: int,
                 validation: str = DISJOINT) -> tuple[np.ndarray, np.ndarray]:
    """The items of one split of a cell, padded, and their lengths.

    train: the first ``size`` items of the cell's training order (nested in ``size``);
    validation: the fixed validation set (``size`` ignored); a test split: ``size``
    (default 2,000, capped at the pool) items over its lengths. A ``size`` given is a positive
    row count a split can hold (`limits.MAX_ROWS`), else ValueError. ``validation`` is the
    rule that sets the validation set apart (`VALIDATION_RULES`); test splits do not depend
    on it.
    """
    if size is not None:
        check_rows(size, f"{cell.dataset}/{cell}: size")
    check_validation_rule(validation)
    if split == "validation":
        val = validation_sizes(cell, validation)
        # In distribution: a stream of its own, so that which words validate is independent
        # of the order training takes them in.
        purpose = VALIDATION if validation == IN_DISTRIBUTION else WORDS
        return _stack(cell, [(n, stream(cell, n, val[n], seed, purpose))
                             for n in cell.lengths])
    if split in cell.test_splits:
        sizes = test_sizes(cell, split, size)
        if size is not None and sum(sizes.values()) < size:
            raise ValueError(f"{cell.dataset}/{cell}: asked for {size} {split} examples, but "
                             f"the pool holds {sum(sizes.values())}")
        return _stack(cell, [(n, stream(cell, n, k, seed, purpose=TEST))
                             for n, k in sizes.items() if k])
    if split != "train":
        raise ValueError(f"unknown split {split!r}; allowed: {', '.join(cell.splits)}")
    available = train_pool_size(cell, validation)
    size = min(DEFAULT_TRAIN_SIZE, available) if size is None else size
    if size < 0 or size > available:
        aside = " once the validation set is set aside" if validation == DISJOINT else ""
        raise ValueError(
            f"{cell.dataset}/{cell}: asked for {size} training examples, but the pool holds "
            f"{available} distinct sequences{aside} "
            f"({cell.variant}, lengths {cell.lengths[0]}..{cell.lengths[-1]})"
        )
    skip = _set_aside(cell, validation)
    capacity = {n: cell.pool_size(n) - skip[n] for n in cell.lengths}
    if cell.dist == "uniform":
        lengths, rank = _uniform_lengths(cell, capacity, size, seed)
        parts = {}
        for n in cell.lengths:
            where = np.flatnonzero(lengths == n)
            if len(where):
                items = stream(cell, n, skip[n] + int(rank[where].max()) + 1, seed)
                parts[n] = (where, items[skip[n] + rank[where]])
        width = max((cell.item_width(n) for n in parts), default=0)
        dtype = next(iter(parts.values()))[1].dtype if parts else np.int64
        out = np.zeros((size, width), dtype=dtype)
        for where, items in parts.values():
            out[where, : items.shape[1]] = items
        return out, lengths.astype(np.int64)
    # fixed and s2l: every item of length n before any of length n + 1.
    parts, left = [], size
    for n in cell.lengths:
        take = min(left, capacity[n])
        parts.append((n, stream(cell, n, skip[n] + take, seed)[skip[n] :]))
        left -= take
        if left == 0:
            break
    return _stack(cell, parts)


def generate(cell: TaskCell, split: str, size: int | None = None, seed: int = 0,
             validation: str = DISJOINT) -> Examples:
    """Examples of ``split`` for ``cell``: a pure function of its arguments.

    ``size`` is the number of training rows (nested: the first N rows of a larger train
    split are the size-N set), the number of rows of a test split (default 2,000 or the
    pool), and is ignored for validation, whose size is fixed by the cell and the
    ``validation`` rule (`VALIDATION_RULES`).
    """
    items, lengths = sample_split(cell, split, size, seed, validation)
    return cell.encode(items, lengths)


def generate_lengths(cell: TaskCell, lengths: tuple[int, ...], size: int | None = None,
                     seed: int = 0) -> Examples:
    """Test rows of ``cell`` at ``lengths`` of the caller's choosing (a word problem's L+1..2L,
    where its own test split is 2L only): ``size`` rows (default 2,000) spread over them as a
    test split spreads its own, each length's rows the first of that length's test stream, so
    at a length a test split of the cell holds too the rows are that split's."""
    caps = {n: cell.pool_size(n) for n in lengths}
    sizes = _spread(TEST_SIZE if size is None else size, caps)
    return cell.encode(*_stack(cell, [(n, stream(cell, n, k, seed, purpose=TEST))
                                      for n, k in sizes.items() if k]))
