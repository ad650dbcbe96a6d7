"""The two validation rules, each checked against its definition by brute force: ``disjoint``
never shares a word with any training set; ``in-distribution`` is a sample of the training
law (the pool's words, distinct, at the counts a 2,000-row draw without replacement gives,
each word of a length equally likely) drawn apart from training, which keeps the whole pool."""

import itertools
from collections import Counter

import numpy as np
import pytest

from hf_induction.tasks import (
    DISJOINT,
    IN_DISTRIBUTION,
    VALIDATION_RULES,
    WordProblemCell,
    generate,
    train_pool_size,
    validation_sizes,
)


def words(ex):
    return [tuple(ex.elements[i, : ex.lengths[i]].tolist()) for i in range(len(ex))]


def pool(m, n):
    """Every word of length n over Z_m, enumerated."""
    return set(itertools.product(range(m), repeat=n))


def cell(name, m=5):
    return WordProblemCell.parse("modadd", f"{name}_m{m}")


def law_counts(pools, total=2000):
    """The expected rows per length of ``total`` distinct rows drawn by the uniform law, where
    each row's length is uniform among the lengths whose pool is not used up: every length
    alive takes an equal share until the smallest alive pool runs out, then the rest go on."""
    left = dict(pools)
    counts = dict.fromkeys(pools, 0.0)
    remaining = float(total)
    while remaining > 1e-9 and any(v > 1e-9 for v in left.values()):
        alive = [n for n, v in left.items() if v > 1e-9]
        # Each alive length takes an equal share until the smallest alive pool is used up.
        step = min(min(left[n] for n in alive), remaining / len(alive))
        for n in alive:
            counts[n] += step
            left[n] -= step
        remaining -= step * len(alive)
    return counts


@pytest.mark.parametrize("name", ["acot_L2", "acot_L3", "outcome_L5_uniform", "cot_L4_s2l"])
def test_disjoint_never_shares_a_word_with_the_whole_training_pool(name):
    c = cell(name)
    train = words(generate(c, "train", train_pool_size(c, DISJOINT), seed=3))
    val = words(generate(c, "validation", None, seed=3))
    assert not set(train) & set(val)
    # Together they are the pool, each word once.
    assert sorted(train + val) == sorted(w for n in c.lengths for w in pool(5, n))


@pytest.mark.parametrize("name", ["acot_L2", "acot_L3", "cot_L5_uniform", "outcome_L4_s2l"])
def test_in_distribution_leaves_the_whole_pool_to_training(name):
    c = cell(name)
    whole = {w for n in c.lengths for w in pool(5, n)}
    assert train_pool_size(c, IN_DISTRIBUTION) == len(whole)
    train = words(generate(c, "train", len(whole), seed=3, validation=IN_DISTRIBUTION))
    val = words(generate(c, "validation", None, seed=3, validation=IN_DISTRIBUTION))
    assert len(set(train)) == len(train) and set(train) == whole
    # Validation: distinct words of the pool, all of them held by the training set that
    # covers the pool.
    assert len(set(val)) == len(val) and set(val) <= whole


@pytest.mark.parametrize("name,m", [("acot_L2", 5), ("acot_L5_uniform", 5),
                                    ("outcome_L10_uniform", 3), ("cot_L3", 13)])
def test_in_distribution_counts_per_length_follow_the_law(name, m):
    c = cell(name, m)
    val = generate(c, "validation", None, seed=0, validation=IN_DISTRIBUTION)
    got = Counter(val.lengths.tolist())
    expected = law_counts({n: m ** n for n in c.lengths})
    assert sum(got.values()) == min(2000, sum(m ** n for n in c.lengths))
    for n in c.lengths:
        # The law's expected count, rounded one way or the other.
        assert abs(got[n] - expected[n]) < 1 + 1e-9, (n, got[n], expected[n])
    assert validation_sizes(c, IN_DISTRIBUTION) == dict(sorted(got.items()))


def test_a_small_pool_is_validated_whole():
    c = cell("acot_L2")
    val = words(generate(c, "validation", None, seed=0, validation=IN_DISTRIBUTION))
    assert sorted(val) == sorted(pool(5, 2))


def test_in_distribution_words_are_uniform_within_a_length():
    # Z_7 at length 4: 2,000 of its 2,401 words are drawn; count how often each word is
    # drawn over many seeds.
    c = cell("acot_L4", 7)
    seeds = 60
    counts = Counter()
    for seed in range(seeds):
        counts.update(words(generate(c, "validation", None, seed=seed,
                                     validation=IN_DISTRIBUTION)))
    assert set(counts) <= pool(7, 4)
    p = 2000 / 7 ** 4
    freq = np.array([counts[w] for w in pool(7, 4)], dtype=float)
    # Each word is drawn Binomial(seeds, p) times; a biased sampler (a word never or always
    # drawn, one length's words favoured) moves the spread or the mean far past these bounds.
    assert abs(freq.mean() - seeds * p) < 1e-9 * seeds + 0.01 * seeds
    sd = np.sqrt(seeds * p * (1 - p))
    assert 0.7 * sd < freq.std() < 1.3 * sd


def test_in_distribution_is_drawn_apart_from_the_training_order():
    # The first training words are not the validation words: the validation stream is its
    # own, so training sets of every size hold some validation words and miss others.
    c = cell("acot_L5")
    val = set(words(generate(c, "validation", None, seed=1, validation=IN_DISTRIBUTION)))
    first = words(generate(c, "train", 2000, seed=1, validation=IN_DISTRIBUTION))
    shared = len(val & set(first))
    # 2,000 of 3,125 words each side: about 1,280 in common by chance, never all or none.
    assert 1000 < shared < 1600


def test_rules_change_no_test_split_and_disjoint_is_the_default():
    c = cell("acot_L3")
    for rule in VALIDATION_RULES:
        assert words(generate(c, "test", 200, seed=2, validation=rule)) == \
            words(generate(c, "test", 200, seed=2))
    assert words(generate(c, "validation", None, seed=2)) == \
        words(generate(c, "validation", None, seed=2, validation=DISJOINT))


def test_a_bad_rule_is_one_line():
    with pytest.raises(ValueError, match=r"unknown validation rule 'overlap'; allowed: "
                                         r"disjoint, in-distribution$"):
        generate(cell("acot_L3"), "validation", None, validation="overlap")
