"""The second study's tasks: every row recomputed by hand, exact pools, splits, errors, grammar."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hf_induction.tasks import copying, generate, parse, retrieval, train_pool_size
from tests.tasks.reference import (
    copy_pool_by_hand,
    copy_source_ok,
    retrieval_by_hand,
    retrieval_pool_by_hand,
)

IGNORE = -100
RETRIEVAL = ["UR_L6", "UL_L6_uniform", "NRFirst_L8_uniform", "NRLast_L8", "NLFirst_L7_s2l",
             "NLLast_L8_uniform_V5", "NRLast_L5_uniform_V3"]
COPY = ["UF_L5", "UB_L6_uniform_V20", "NF_L8_uniform", "NB_L7_s2l", "NF_L4_uniform_V4"]


def check_retrieval_row(cell, ex, i):
    n = int(ex.lengths[i])
    context = ex.context[i, :n].tolist()
    query, answer = int(ex.query[i]), int(ex.answer[i])
    assert all(0 <= c < cell.family_param for c in context) and 0 <= query < cell.family_param
    assert retrieval_by_hand(cell.task, context, query) == answer
    vocab = cell.vocab
    ids = [vocab.bos, *context, vocab.sep, query, answer]
    t = int(ex.token_lengths[i])
    assert ex.input_ids[i, :t].tolist() == ids
    # Only the answer is supervised: the output after reading "... SEP q".
    assert ex.labels[i, :t].tolist() == [IGNORE] * (n + 3) + [answer]
    assert (ex.input_ids[i, t:] == vocab.pad).all() and (ex.labels[i, t:] == IGNORE).all()


def check_copy_row(cell, ex, i):
    n = int(ex.lengths[i])
    source, target = ex.source[i, :n].tolist(), ex.target[i, :n].tolist()
    assert copy_source_ok(cell.task, source)
    assert target == (source[::-1] if cell.task.endswith("B") else source)
    vocab = cell.vocab
    ids = [vocab.bos, *source, vocab.sep, *target, vocab.eos]
    t = int(ex.token_lengths[i])
    assert ex.input_ids[i, :t].tolist() == ids
    assert ex.labels[i, :t].tolist() == [IGNORE] * (n + 2) + target + [vocab.eos]


@pytest.mark.parametrize("dataset,name,check",
                         [("retrieval", n, check_retrieval_row) for n in RETRIEVAL]
                         + [("copy", n, check_copy_row) for n in COPY])
def test_every_row_by_brute_force(dataset, name, check):
    cell = parse(dataset, name)
    for split in cell.splits:
        size = min(300, train_pool_size(cell)) if split == "train" else None
        ex = generate(cell, split, size, seed=3)
        assert len(ex) > 0
        assert set(ex.lengths.tolist()) <= set(cell.lengths if split in ("train", "validation")
                                              else cell.test_splits[split])
        for i in range(0, len(ex), max(1, len(ex) // 150)):
            check(cell, ex, i)


def items(cell, ex):
    if cell.dataset == "retrieval":
        return [(tuple(ex.context[i, : ex.lengths[i]].tolist()), int(ex.query[i]))
                for i in range(len(ex))]
    return [tuple(ex.source[i, : ex.lengths[i]].tolist()) for i in range(len(ex))]


@pytest.mark.parametrize("dataset,name", [("retrieval", "NRLast_L8_uniform"),
                                          ("retrieval", "UR_L4_V3"), ("copy", "NF_L6_uniform"),
                                          ("copy", "UB_L8")])
def test_splits_are_unique_disjoint_nested_and_deterministic(dataset, name):
    cell = parse(dataset, name)
    size = min(2000, train_pool_size(cell))
    train = items(cell, generate(cell, "train", size, seed=1))
    val = items(cell, generate(cell, "validation", None, seed=1))
    tests = {s: items(cell, generate(cell, s, None, seed=1)) for s in cell.test_splits}
    every = [train, val, *tests.values()]
    for split in every:
        assert len(set(split)) == len(split)
    for a in range(len(every)):
        for b in range(a + 1, len(every)):
            assert not set(every[a]) & set(every[b])
    assert items(cell, generate(cell, "train", size // 3, seed=1)) == train[: size // 3]
    assert items(cell, generate(cell, "validation", None, seed=1)) == val
    assert items(cell, generate(cell, "validation", None, seed=2)) != val


@pytest.mark.parametrize("task", retrieval.TASKS)
@pytest.mark.parametrize("n,symbols", [(4, 3), (5, 4), (6, 3)])
def test_retrieval_pools_are_exact(task, n, symbols):
    cell = retrieval.RetrievalCell(task, 6, family_param=symbols)
    assert cell.pool_size(n) == retrieval_pool_by_hand(task, n, symbols)


# UF/UB cells need V >= 3L (L = 2 here); NF/NB ones only enough symbols to repeat.
@pytest.mark.parametrize("task,n,symbols", [
    (task, n, v) for task in copying.TASKS
    for n, v in ([(2, 6), (4, 7), (5, 6)] if task.startswith("U") else
                 [(2, 6), (4, 7), (6, 4), (7, 3)])])
def test_copy_pools_are_exact(task, n, symbols):
    cell = copying.CopyCell(task, 2, family_param=symbols)
    assert cell.pool_size(n) == copy_pool_by_hand(task, n, symbols)


def test_a_small_pool_is_used_up_exactly():
    cell = parse("retrieval", "NRLast_L5_V3")
    pool = cell.pool_size(5)
    assert train_pool_size(cell) == pool - max(1, int(pool * 0.2))
    every = items(cell, generate(cell, "train", train_pool_size(cell), seed=0))
    assert len(set(every)) == train_pool_size(cell)
    with pytest.raises(ValueError, match="pool holds"):
        generate(cell, "train", train_pool_size(cell) + 1, seed=0)


@pytest.mark.parametrize("dataset,name,n", [("retrieval", "NRLast_L5_V3", 6),
                                            ("retrieval", "UL_L5_V3", 5),
                                            ("copy", "NB_L2_V3", 6)])
def test_the_random_draw_is_uniform_over_the_pool(dataset, name, n):
    # Large pools are drawn at random; on a small pool the draw must hit every item equally.
    cell = parse(dataset, name)
    draws = cell._draw(n, 200_000, np.random.default_rng(0))
    assert cell.valid(draws, n).all()
    _, counts = np.unique(draws, axis=0, return_counts=True)
    pool = cell.pool_size(n)
    assert len(counts) == pool
    expected = len(draws) / pool
    chi2 = ((counts - expected) ** 2 / expected).sum()
    # Mean pool - 1, sd sqrt(2 (pool - 1)): six sd is a failure, not chance.
    assert chi2 < pool - 1 + 6 * math.sqrt(2 * (pool - 1))


@pytest.mark.parametrize("dataset,name,part", [
    ("retrieval", "NRFirst_L3", "L >= 4"),
    ("retrieval", "UR_L1", "L >= 2"),
    ("retrieval", "NLLast_L6_V2", "V >= 3"),
    ("retrieval", "UB_L6", "'UB'"),
    ("copy", "UF_L10_V20", "V >= 30"),
    ("copy", "NF_L10_V5", "V >= 10"),
    ("copy", "NF_L1", "L >= 2"),
    ("copy", "UF_L5_gauss", "'gauss'"),
    ("copy", "UFL5", "cannot parse"),
])
def test_impossible_cells_are_one_clear_error(dataset, name, part):
    with pytest.raises(ValueError) as e:
        parse(dataset, name)
    assert part in str(e.value) and "_L{L}" in str(e.value)


@given(task=st.sampled_from(retrieval.TASKS), L=st.integers(4, 40),
       dist=st.sampled_from(["fixed", "uniform", "s2l"]), V=st.integers(3, 64))
def test_retrieval_grammar_round_trips(task, L, dist, V):
    cell = retrieval.RetrievalCell(task, L, dist, V)
    assert parse("retrieval", str(cell)) == cell


@given(task=st.sampled_from(copying.TASKS), L=st.integers(2, 30),
       dist=st.sampled_from(["fixed", "uniform", "s2l"]), extra=st.integers(0, 20))
def test_copy_grammar_round_trips(task, L, dist, extra):
    cell = copying.CopyCell(task, L, dist, 3 * L + extra)
    assert parse("copy", str(cell)) == cell


def test_metrics_mean_what_each_family_says():
    cell = parse("copy", "UB_L4")
    ex = generate(cell, "validation", None, seed=0)
    oracle = np.roll(np.where(ex.labels == IGNORE, 0, ex.labels), -1, axis=1)
    assert cell.metrics(oracle, ex.labels) == {"exact_match": 1.0, "token_accuracy": 1.0}
    # One wrong symbol in every row: no exact match, 3 of 4 tokens right.
    broken = oracle.copy()
    broken[:, 6] = (broken[:, 6] + 1) % cell.family_param  # the second target symbol of n = 4
    got = cell.metrics(broken, ex.labels)
    assert got["exact_match"] == 0.0 and got["token_accuracy"] == pytest.approx(0.75)
    r = parse("retrieval", "UR_L6")
    ex = generate(r, "validation", None, seed=0)
    oracle = np.roll(np.where(ex.labels == IGNORE, 0, ex.labels), -1, axis=1)
    assert r.metrics(oracle, ex.labels) == {"accuracy": 1.0}


def test_the_partitioned_permutation_prefix_is_the_sorted_one():
    g = np.random.default_rng(0)
    for V, k in [(300, 1), (300, 100), (300, 299), (300, 300), (7, 3), (2, 1)]:
        keys = g.random((500, V))
        assert np.array_equal(copying.first_of_permutation(keys, k),
                              copying.first_of_permutation_reference(keys, k))
    # Ties among the smallest keys, or at the k-th: the sort decides, as in the reference.
    keys = g.integers(0, 4, (500, 12)).astype(float)
    for k in (1, 3, 6):
        assert np.array_equal(copying.first_of_permutation(keys, k),
                              copying.first_of_permutation_reference(keys, k))


@pytest.mark.parametrize("name", ["UF_L12_uniform_V36", "UB_L30_V90"])
def test_unique_sources_are_the_same_stream_in_small_chunks(name):
    from hf_induction.tasks.limits import FIRST_CHUNK
    from hf_induction.tasks.sampling import distinct_draws

    cell = parse("copy", name)
    assert cell.first_draw() < FIRST_CHUNK
    for n, count in [(cell.max_len, 3000), (2 * cell.max_len, 5)]:
        def draw(r, size, n=n):
            return cell._draw(n, size, r)

        small = distinct_draws(draw, count, np.random.default_rng(n), first=cell.first_draw())
        whole = distinct_draws(draw, count, np.random.default_rng(n), first=FIRST_CHUNK)
        assert np.array_equal(small, whole)
    # A repeating source's draw keeps the family's chunks (its rows depend on them).
    assert parse("copy", "NF_L12_V12").first_draw() == FIRST_CHUNK
