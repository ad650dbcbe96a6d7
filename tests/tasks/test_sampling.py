import numpy as np
import pytest

from hf_induction.tasks import (
    WordProblemCell,
    generate,
    pool_size,
    train_pool_size,
    validation_sizes,
)
from hf_induction.tasks.sampling import PERMUTATION_POOL_LIMIT
from hf_induction.tasks.word_problems import unique_words


def rows(ex):
    return [tuple(ex.elements[i, : ex.lengths[i]].tolist()) for i in range(len(ex))]


CASES = [
    pytest.param("modadd", "acot_L4", id="small-fixed"),
    pytest.param("modadd", "cot_L6_uniform", id="small-uniform"),
    pytest.param("permutation", "outcome_L3_s2l_S3", id="perm-s2l"),
    # 5^10 words: above the shuffle limit, so the draw-and-deduplicate stream is used.
    pytest.param("modadd", "acot_L10", id="stream-fixed"),
    pytest.param("permutation", "acot_L4_uniform", id="stream-uniform-S5"),
]


@pytest.mark.parametrize("dataset,name", CASES)
def test_unique_disjoint_and_nested(dataset, name):
    cfg = WordProblemCell.parse(dataset, name)
    big = min(3000, train_pool_size(cfg))
    train = rows(generate(cfg, "train", big, seed=1))
    val = rows(generate(cfg, "validation", None, seed=1))
    test = generate(cfg, "test", 500, seed=1)
    assert len(set(train)) == len(train) == big
    assert len(set(val)) == len(val)
    assert not set(train) & set(val)
    assert set(test.lengths.tolist()) == {2 * cfg.max_len}
    assert len(set(rows(test))) == len(test)
    small = rows(generate(cfg, "train", big // 3, seed=1))
    assert small == train[: big // 3]
    assert rows(generate(cfg, "validation", None, seed=1)) == val


def test_deterministic_bytes_and_seed_sensitivity():
    cfg = WordProblemCell.parse("permutation", "cot_L6_uniform")
    a, b = generate(cfg, "train", 500, seed=7), generate(cfg, "train", 500, seed=7)
    assert a.input_ids.tobytes() == b.input_ids.tobytes()
    assert a.labels.tobytes() == b.labels.tobytes()
    c = generate(cfg, "train", 500, seed=8)
    assert a.input_ids.tobytes() != c.input_ids.tobytes()


def test_stream_is_prefix_stable_beyond_the_first_chunk():
    g = WordProblemCell.parse("modadd", "acot_L12").group
    assert pool_size(g, 12) > PERMUTATION_POOL_LIMIT
    long = unique_words(g, 12, 150_000, seed=0)
    short = unique_words(g, 12, 70_000, seed=0)
    assert (long[:70_000] == short).all()
    assert len(np.unique(long, axis=0)) == len(long)


def test_validation_rule():
    # Pool 5^6 = 15,625: 20% is 3,125 > 2,000.
    assert validation_sizes(WordProblemCell.parse("modadd", "acot_L6")) == {6: 2000}
    # Pool 5^4 = 625: 20% = 125.
    assert validation_sizes(WordProblemCell.parse("modadd", "acot_L4")) == {4: 125}
    # Spread over lengths, each at most 20% of its own pool, 2,000 in all.
    sizes = validation_sizes(WordProblemCell.parse("modadd", "acot_L10_uniform"))
    assert sum(sizes.values()) == 2000
    for n, v in sizes.items():
        assert 1 <= v <= max(1, 5**n // 5)
    assert sizes[2] == 5 and sizes[3] == 25
    # Lengths whose pools are not the limit share the rest evenly.
    assert max(sizes[n] for n in range(5, 11)) - min(sizes[n] for n in range(5, 11)) <= 1


def test_uniform_spreads_lengths_and_s2l_goes_short_to_long():
    u = generate(WordProblemCell.parse("modadd", "acot_L8_uniform"), "train", 4000, seed=0)
    counts = np.bincount(u.lengths, minlength=9)[2:]
    assert counts[0] == 25 - 5  # length 2 is exhausted: its 20 training words, no more
    assert counts[3:].min() > 400
    s = generate(WordProblemCell.parse("modadd", "acot_L8_s2l"), "train", 1000, seed=0)
    assert (np.diff(s.lengths) >= 0).all()
    assert (s.lengths[:20] == 2).all() and (s.lengths[20:120] == 3).all()


def test_pool_errors_state_the_pool_size():
    cfg = WordProblemCell.parse("modadd", "acot_L3_m2")
    assert train_pool_size(cfg) == 8 - 1
    assert len(generate(cfg, "train", 7, seed=0)) == 7
    with pytest.raises(ValueError, match="pool holds 7 distinct"):
        generate(cfg, "train", 8, seed=0)
    with pytest.raises(ValueError, match="unknown split"):
        generate(cfg, "dev", 8, seed=0)
