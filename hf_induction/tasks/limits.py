"""What one cell may ask of one machine: the bounds every family's parser checks, so that a name
no sampler or model could serve is one line at parse time, never an overflow, a 100 GB
allocation or a results folder half written. Each bound is derived below from the memory a run
may count on and from what the sampler and the models hold per token, row or symbol.

Pure arithmetic on a cell's lengths and vocabulary: nothing is drawn or allocated.
"""

from __future__ import annotations

# The memory a run may count on: the project's CPU machines have 24 GiB.
MEMORY_BYTES = 24 << 30
MEMORY = "24 GiB"

# -- the longest row ------------------------------------------------------------------
# A split is drawn FIRST_CHUNK (65,536) rows at a time whatever is asked (sampling.py doubles
# the draw until it has enough; the bounds here count in it, so it is set here), and a
# draw peaks at about 32 bytes a token of the rows it makes (measured at FIRST_CHUNK rows:
# retrieval's UR 31.5, a word problem's cot encode 17, copy's NF 19: int64 ids and labels,
# random keys and their ranks). That draw may take half the memory; the other half is the
# run's (the model, the rows drawn before). So a cell's longest row, at its longest split, has
# at most 24 GiB / 2 / (65,536 x 32 B) = 6,144 tokens.
BYTES_PER_TOKEN = 32
FIRST_CHUNK = 1 << 16
MAX_TOKENS = MEMORY_BYTES // 2 // (FIRST_CHUNK * BYTES_PER_TOKEN)

# -- the longest draw -------------------------------------------------------------------
# Where a family's draw works in exact big-integer arithmetic before making rows (a repeating
# copy source's multiplicities: p x n^2 products at length n, `TaskCell.draw_cost`), each
# length of a split costs that once. Measured: 0.96 s a length at n = 300 (9.0e6 products;
# 10 s at n = 600), so a split of L lengths at 3L takes minutes at L = 100 and hours past 200.
# The bound keeps one length's draw near a second.
MAX_DRAW_COST = 10_000_000

# -- the vocabulary -------------------------------------------------------------------
# A model embeds every token and scores every token: an input embedding and an output head of
# `hidden_size` float32 weights a token, each weight with its gradient and two Adam moments
# (16 bytes). At the widest preset (the paper's LSTM, hidden_size 768: models/presets.py;
# tests/tasks/test_limits.py holds this copy to it) that is 2 x 768 x 16 B = 24 KiB a token,
# so a vocabulary of at most 24 GiB / 24 KiB = 1,048,576 tokens (2^20) fits.
WIDEST_HIDDEN_SIZE = 768
BYTES_PER_TRAINED_WEIGHT = 16
MAX_VOCAB = MEMORY_BYTES // (2 * WIDEST_HIDDEN_SIZE * BYTES_PER_TRAINED_WEIGHT)

# -- a group's multiplication table ----------------------------------------------------------
# A group of the `group` family composes by table lookup, and its facts (commuting pairs,
# commutator subgroups: `group_facts`) are read from the table: |G|^2 ids of 2 bytes held for
# the whole run. The table may take 1/64 of the memory, so |G| <= sqrt(24 GiB / 64 / 2 B).
BYTES_PER_TABLE_ENTRY = 2
MAX_GROUP_ORDER = int((MEMORY_BYTES // 64 // BYTES_PER_TABLE_ENTRY) ** 0.5)
GROUP_ORDER_WHY = (f"its multiplication table holds |G|^2 ids of {BYTES_PER_TABLE_ENTRY} bytes "
                   f"in 1/64 of {MEMORY}")

# -- a group from generators ------------------------------------------------------------
# `group_names.close` composes each element it finds with each generator, point by point, and
# holds every element as a tuple of its degree: up to MAX_GROUP_ORDER elements times the
# generators' points in all. Measured: about 0.1 us a point (20 s for the 14,188 elements of
# one 14,188-cycle), so at most 4,096 points in all keep a closure within about 6 s and 0.5 GB.
MAX_GENERATOR_POINTS = 4096
GENERATOR_POINTS_WHY = (f"the closure composes each of up to {MAX_GROUP_ORDER} elements with "
                        f"each generator, point by point")
# A groups file is read whole by the YAML reader, about 60 us a number (61 s for one generator
# of degree 1,000,000) before any generator can be looked at; groups within the bound above
# spell in a few tens of KB, and 256 KiB reads in about 2 s.
MAX_GROUPS_FILE_BYTES = 1 << 18
GROUPS_FILE_WHY = ("the file is read whole before a generator is looked at; groups within "
                   f"{MAX_GENERATOR_POINTS} points spell in far less")

# -- rows of a split --------------------------------------------------------------------
# Every row drawn keeps a 64-bit hash for de-duplication (sampling.first_occurrences), and the
# doubling draws ask for up to twice the rows requested: at least 16 bytes a row requested, so
# a split (a training set, a batch) of at most 24 GiB / 16 B = 1,610,612,736 rows.
BYTES_PER_ROW = 2 * 8
MAX_ROWS = MEMORY_BYTES // BYTES_PER_ROW
ROWS_WHY = (f"every row drawn keeps a 64-bit hash and the doubling draws ask up to twice the "
            f"rows: {BYTES_PER_ROW} bytes a row in {MEMORY}")

# -- counters ---------------------------------------------------------------------------
# Steps, seeds and sizes are written to the results tables as int64 columns (results/rows.py).
MAX_INT64 = (1 << 63) - 1


def _fits(cell, L: int) -> bool:
    n = cell.LENGTH_SPAN * L
    return cell.token_length(n) <= MAX_TOKENS and cell.draw_cost(n) <= MAX_DRAW_COST


def longest_length(cell) -> int:
    """The largest L whose longest split (``LENGTH_SPAN`` x L) has rows of at most `MAX_TOKENS`
    tokens, drawn within `MAX_DRAW_COST`: a bisection, as both grow with n and a row has at
    least n tokens."""
    lo, hi = 0, MAX_TOKENS // cell.LENGTH_SPAN
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _fits(cell, mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def check_length(cell) -> None:
    """ValueError, one line naming L, its bound and why, if ``cell``'s longest row (at its
    longest split) has more than `MAX_TOKENS` tokens or takes more than `MAX_DRAW_COST` to
    draw."""
    span = cell.LENGTH_SPAN * cell.max_len
    tokens = cell.token_length(span)
    if tokens > MAX_TOKENS:
        raise ValueError(
            f"config {cell}: L = {cell.max_len} exceeds {longest_length(cell)} (its longest "
            f"split reaches length {cell.LENGTH_SPAN}L = {span}, rows of {tokens} tokens; the "
            f"sampler draws {FIRST_CHUNK} rows at a time at up to {BYTES_PER_TOKEN} bytes a "
            f"token, in half of {MEMORY}: at most {MAX_TOKENS} tokens a row)")
    cost = cell.draw_cost(span)
    if cost > MAX_DRAW_COST:
        raise ValueError(
            f"config {cell}: L = {cell.max_len} exceeds {longest_length(cell)} (its longest "
            f"split reaches length {cell.LENGTH_SPAN}L = {span}, whose exact draw takes {cost:.1e} "
            f"big-integer products a length; at most {MAX_DRAW_COST:.0e}, about a second)")


def check_vocab(cell) -> None:
    """ValueError, one line naming the family parameter (as its grammar spells it: "m", "V"),
    its bound and why, if ``cell``'s vocabulary has more than `MAX_VOCAB` tokens."""
    size = cell.vocab.size
    if size > MAX_VOCAB:
        specials = size - cell.vocab.order
        raise ValueError(
            f"config {cell}: {cell.grammar.symbol} = {cell.family_param} exceeds "
            f"{MAX_VOCAB - specials} (a vocabulary of {size} tokens; an embedding and an output "
            f"head of {WIDEST_HIDDEN_SIZE} float32 weights a token, with their gradients and Adam "
            f"moments, hold at most {MAX_VOCAB} tokens in {MEMORY})")


def check_rows(value: int, what: str) -> None:
    """ValueError, one line, unless ``value`` is a row count a split can hold (1..MAX_ROWS)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")
    if value > MAX_ROWS:
        raise ValueError(f"{what} = {value} exceeds {MAX_ROWS} ({ROWS_WHY})")
