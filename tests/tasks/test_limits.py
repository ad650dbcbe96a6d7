"""The bounds on a config name's numbers (tasks/limits.py): each family refuses, in one line
naming the value, its bound and why, a length no sampler could draw and a vocabulary no model
could embed; the largest allowed value parses, builds its pools and draws rows."""

import itertools

import pytest

from hf_induction.models.presets import PRESETS
from hf_induction.tasks import limits, parse, sampling
from hf_induction.tasks.copying import arrangements, repeated_symbols
from hf_induction.tasks.sampling import sample_split, validation_sizes
from tests.tasks.reference import arrangements_by_sum

# One cell a family, named with L and the vocabulary parameter left to fill.
FAMILIES = [
    ("modadd", "acot_L{L}_m{m}", "m"),
    ("modadd", "outcome_L{L}_uniform_m{m}", "m"),
    ("permutation", "cot_L{L}_S3", None),
    ("retrieval", "UR_L{L}_V{m}", "V"),
    ("retrieval", "NLLast_L{L}_uniform_V{m}", "V"),
    ("copy", "UF_L{L}_V{m}", "V"),
    ("copy", "NB_L{L}_s2l_V{m}", "V"),
    ("lorem", "copy_L{L}_uniform", None),
    ("git", "cherry_pick_L{L}", None),
]


def name(pattern, L, m=None):
    # Enough symbols for every family at length L (copy's UF needs V >= 3L).
    return pattern.format(L=L, m=3 * L + 8 if m is None else m)


def test_the_vocabulary_bound_is_taken_at_the_widest_preset():
    widths = [fields.get("hidden_size", fields.get("n_embd"))
              for preset in PRESETS.values() for fields in preset.values()]
    assert limits.WIDEST_HIDDEN_SIZE == max(widths)
    assert limits.MAX_VOCAB * 2 * limits.WIDEST_HIDDEN_SIZE * 16 <= limits.MEMORY_BYTES


@pytest.mark.parametrize("dataset,pattern,param", FAMILIES)
def test_the_longest_length_is_the_last_whose_longest_split_fits(dataset, pattern, param):
    # The bound, found by walking up from a small L with the family's own token count and draw
    # cost: the last L whose longest split has rows of at most MAX_TOKENS tokens, drawn within
    # MAX_DRAW_COST.
    small = parse(dataset, name(pattern, 8))
    span = small.LENGTH_SPAN

    def fits(L):
        return (small.token_length(span * L) <= limits.MAX_TOKENS
                and small.draw_cost(span * L) <= limits.MAX_DRAW_COST)

    L = 8
    while fits(L + 1):
        L += 1
    assert limits.longest_length(small) == L
    parse(dataset, name(pattern, L))
    with pytest.raises(ValueError) as e:
        parse(dataset, name(pattern, L + 1))
    message = str(e.value)
    assert len(message.splitlines()) == 1 and f"L = {L + 1} exceeds {L}" in message
    assert f"{limits.MAX_TOKENS} tokens" in message or "big-integer products" in message


@pytest.mark.parametrize("dataset,pattern,param", [f for f in FAMILIES if f[2]])
def test_the_largest_vocabulary_is_the_last_a_model_can_embed(dataset, pattern, param):
    top = limits.MAX_VOCAB - 4  # four special tokens in every family's vocabulary
    cell = parse(dataset, name(pattern, 6, top))
    assert cell.vocab.size <= limits.MAX_VOCAB
    with pytest.raises(ValueError) as e:
        parse(dataset, name(pattern, 6, top + 1))
    message = str(e.value)
    assert len(message.splitlines()) == 1
    assert f"{param} = {top + 1} exceeds {top}" in message and "24 GiB" in message


@pytest.mark.parametrize("dataset,pattern", [("modadd", "acot_L{L}_m{m}"),
                                             ("retrieval", "UR_L{L}_V{m}"),
                                             ("retrieval", "NRFirst_L{L}_V{m}"),
                                             ("copy", "NF_L{L}_V{m}")])
def test_a_cell_at_its_longest_length_counts_its_pools(dataset, pattern):
    # Pools such as 8^6000 overflow a float, the copy pool's recursion ran out of frames near
    # L = 1,000, and the retrieval pools' sums took a second a length: every length of every
    # split is counted exactly, and the splits' sizes follow.
    cell = parse(dataset, name(pattern, limits.longest_length(parse(dataset, name(pattern, 8)))))
    longest = list(cell.test_splits)[-1]
    for n in cell.test_splits[longest]:
        assert cell.pool_size(n) > 2 ** 64
    assert sum(validation_sizes(cell).values()) == 2000
    assert sum(sampling.test_sizes(cell, longest).values()) == 2000


# Draws the longest cell's rows: about 20 s on a CPU core.
@pytest.mark.slow
def test_the_longest_repeating_copy_cell_draws_at_its_longest_length():
    # The bound that exists for the draw: at it, a length's exact multiplicities are drawn.
    cell = parse("copy", name("NB_L{L}_V{m}", limits.longest_length(parse("copy", "NB_L8"))))
    items, lengths = sample_split(cell, list(cell.test_splits)[-1], 2, 0)
    assert len(items) == 2 and lengths.max() > 2 * cell.max_len
    assert all(cell.valid(items[i : i + 1, :n], n)[0] for i, n in enumerate(lengths.tolist()))


def test_arrangements_equal_a_brute_force_count_and_the_sum_over_block_sizes():
    # Strings of length n over p symbols, each used at least twice: by enumeration, then by the
    # slow sum (tests/tasks/reference.py) where enumeration is out of reach.
    for p, n in itertools.product(range(0, 4), range(0, 9)):
        brute = sum(1 for s in itertools.product(range(p), repeat=n)
                    if all(s.count(a) >= 2 for a in range(p)))
        assert arrangements(p, n) == brute, (p, n)
    for p, n in itertools.product(range(0, 12), range(0, 40)):
        assert arrangements(p, n) == arrangements_by_sum(p, n), (p, n)
    for n in range(121):
        assert arrangements(repeated_symbols(n), n) == arrangements_by_sum(
            repeated_symbols(n), n), n


@pytest.mark.parametrize("size", [0, -3, limits.MAX_ROWS + 1])
def test_a_split_size_outside_what_can_be_held_is_refused(size):
    cell = parse("modadd", "acot_L3")
    with pytest.raises(ValueError, match="size"):
        sample_split(cell, "train", size, 0)
