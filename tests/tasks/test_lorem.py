"""Lorem: rows recomputed from their paragraph, exact pools, the sampling rule, splits, the error
split against hand counts, grammar, and the Hub folder."""

import itertools
import math

import datasets
import numpy as np
import pytest

from hf_induction.data import build_folder
from hf_induction.tasks import generate, parse, train_pool_size
from hf_induction.tasks.chance import chance_level, split_sizes
from hf_induction.tasks.continuations import (
    AMBIGUOUS,
    DELETE,
    FIRST,
    INSERT,
    MATCH,
    SUBSTITUTE,
    UNAMBIGUOUS,
    CopyErrors,
    align,
    copy_errors,
    position_classes,
)
from hf_induction.tasks.lorem import WORDS, LoremCell
from hf_induction.templates import dataset_card_template

IGNORE = -100
CELLS = ["copy_L12_V3", "copy_L14_uniform_V2", "copy_L30_V8", "copy_L40_uniform_V16", "copy_L40"]


def sentences_by_hand(text, V):
    """The sentences (word lists) of a paragraph over V words and the period V, or None if it is
    not one: whole sentences of 4 to 8 words, each closed by a period."""
    out, words = [], []
    for token in text:
        if token == V:
            if not 4 <= len(words) <= 8:
                return None
            out.append(tuple(words))
            words = []
        elif 0 <= token < V:
            words.append(token)
        else:
            return None
    return out if out and not words else None


def continuations_by_hand(text):
    follow = {}
    for a, b in itertools.pairwise(text):
        follow.setdefault(a, set()).add(b)
    return [0] + [len(follow[a]) for a in text[:-1]]


@pytest.mark.parametrize("name", CELLS)
def test_every_row_by_brute_force(name):
    cell = parse("lorem", name)
    V, vocab = cell.family_param, cell.vocab
    for split in cell.splits:
        size = min(200, train_pool_size(cell)) if split == "train" else None
        ex = generate(cell, split, size, seed=3)
        assert set(ex.lengths.tolist()) <= set(cell.lengths if split in ("train", "validation")
                                              else cell.test_splits[split])
        for i in range(0, len(ex), max(1, len(ex) // 60)):
            n, t = int(ex.lengths[i]), int(ex.token_lengths[i])
            x = ex.source[i, :n].tolist()
            assert sentences_by_hand(x, V) is not None, x
            assert ex.target[i, :n].tolist() == x
            assert ex.continuations[i, :n].tolist() == continuations_by_hand(x)
            assert ex.input_ids[i, :t].tolist() == [vocab.bos, *x, vocab.sep, *x, vocab.eos]
            assert ex.labels[i, :t].tolist() == [IGNORE] * (n + 2) + x + [vocab.eos]
            assert (ex.input_ids[i, t:] == vocab.pad).all()


def paragraphs_by_hand(strings, V):
    """Which rows ``[K, n]`` of token strings are paragraphs: the last token a period, and
    before each period 4 to 8 words since the one before (or since the start)."""
    place = np.arange(strings.shape[1])
    period = strings == V
    last = np.maximum.accumulate(np.where(period, place, -1), axis=1)
    before = np.hstack([np.full((len(strings), 1), -1), last[:, :-1]])
    words = place - before - 1
    return period[:, -1] & (~period | ((words >= 4) & (words <= 8))).all(axis=1)


@pytest.mark.parametrize("V,n", [(2, 5), (2, 11), (2, 12), (3, 10), (4, 8)])
def test_the_pool_is_every_paragraph_exactly(V, n):
    # Every string of n tokens over the V words and the period, kept if it is a paragraph.
    strings = np.array(list(itertools.product(range(V + 1), repeat=n)), dtype=np.int64)
    brute = int(paragraphs_by_hand(strings, V).sum())
    cell = LoremCell("copy", 40, family_param=V)
    assert cell.pool_size(n) == brute
    # The unranking enumerates exactly that pool.
    every = cell.unrank(n, np.arange(brute))
    assert len({tuple(r) for r in every.tolist()}) == brute
    assert paragraphs_by_hand(every.astype(np.int64), V).all()


def test_a_pool_of_three_sentences_by_hand():
    # 15 tokens: three sentences of 4 words, or two of 5 + 8, 6 + 7, 7 + 6 or 8 + 5 words.
    assert LoremCell("copy", 40, family_param=3).pool_size(15) == 3**12 + 4 * 3**13


def test_a_small_pool_is_used_up_exactly():
    # Two sentences of 4 and 5 words, either way round: 2 x 2^9 = 1,024 paragraphs.
    cell = parse("lorem", "copy_L11_V2")
    pool = cell.pool_size(11)
    assert train_pool_size(cell) == pool - max(1, int(pool * 0.2))
    every = generate(cell, "train", train_pool_size(cell), seed=0).source
    assert len({tuple(r) for r in every.tolist()}) == train_pool_size(cell)
    with pytest.raises(ValueError, match="pool holds"):
        generate(cell, "train", train_pool_size(cell) + 1, seed=0)


def test_without_its_repetitions_the_rule_is_uniform_on_the_pool():
    # 15 tokens over 3 words: three sentences of 4 words (3^12 paragraphs), or two of 5 + 8,
    # 6 + 7, 7 + 6, 8 + 5 words (3^13 each). Uniform on the pool, the first sentence has 4 words
    # 1/13 of the time and 5, 6, 7 or 8 words 3/13 each (not 1/5 each, as a uniform choice
    # among the five ways to cut the paragraph would give).
    V, n = 3, 15
    exact = np.array([0, 0, 0, 0, 1, 3, 3, 3, 3]) / 13
    draws = LoremCell("copy", 40, family_param=V).draw(n, 40_000, np.random.default_rng(0),
                                                  rule=False)
    first = [len(sentences_by_hand(r, V)[0]) for r in draws.tolist()]
    seen = np.bincount(first, minlength=9) / len(first)
    assert np.abs(seen - exact).max() < 4 * math.sqrt(0.25 / len(first))
    # Words are uniform and independent: a word of a sentence equals the one before it 1/V of
    # the time.
    same = [a == b for r in draws.tolist() for s in sentences_by_hand(r, V)
            for a, b in itertools.pairwise(s)]
    assert abs(np.mean(same) - 1 / V) < 0.01


def test_the_rule_writes_sentences_again_and_repeats_words():
    cell = parse("lorem", "copy_L200")
    assert cell.pool_size(200) >= 1 << 64  # drawn by the rule
    rows = cell.draw(200, 400, np.random.default_rng(1)).tolist()
    again, fresh_pairs = [], []
    for r in rows:
        seen = set()
        for s in sentences_by_hand(r, cell.family_param):
            # A sentence already written is one written again (200 words: a fresh one equal to
            # an earlier one has chance below 200^-4).
            again.append(s in seen)
            if s not in seen:
                fresh_pairs += [a == b for a, b in itertools.pairwise(s)]
            seen.add(s)
    # 0.3 of the sentences after the first, less those whose rest would not fit.
    share = np.sum(again) / (len(again) - len(rows))
    assert 0.26 < share < 0.31
    # A word is the previous one again with probability 0.1, or by chance 0.9 / 200.
    assert abs(np.mean(fresh_pairs) - (0.1 + 0.9 / 200)) < 0.01


@pytest.mark.parametrize("name", ["copy_L12_uniform_V3", "copy_L30_V8"])
def test_splits_are_unique_disjoint_nested_and_deterministic(name):
    cell = parse("lorem", name)
    size = min(1500, train_pool_size(cell))

    def items(split, size=None, seed=1):
        ex = generate(cell, split, size, seed=seed)
        return [tuple(ex.source[i, : ex.lengths[i]].tolist()) for i in range(len(ex))]

    train, val = items("train", size), items("validation")
    tests = [items(s) for s in cell.test_splits]
    every = [train, val, *tests]
    assert all(len(set(s)) == len(s) for s in every)
    for a, b in itertools.combinations(every, 2):
        assert not set(a) & set(b)
    assert items("train", size // 3) == train[: size // 3]
    assert items("validation") == val and items("validation", seed=2) != val


# A hand-written paragraph over V = 4 words and the period P = 4, numbered by position 1..10:
#   x = 0 1 2 0 3 P 0 1 2 P
# Continuations: 0 -> {1, 3}, 2 -> {0, P}: ambiguous; 1 -> {2}, 3 -> {P}, P -> {0}: one each.
# Position i follows x_{i-1}: 1 first; 2, 4, 5, 8, 10 ambiguous; 3, 6, 7, 9 unambiguous.
P = 4
X = [0, 1, 2, 0, 3, P, 0, 1, 2, P]
X_CLASSES = [FIRST, AMBIGUOUS, UNAMBIGUOUS, AMBIGUOUS, AMBIGUOUS, UNAMBIGUOUS, UNAMBIGUOUS,
             AMBIGUOUS, UNAMBIGUOUS, AMBIGUOUS]
# A second one: y = 2 2 2 3 P; 2 -> {2, 3} ambiguous, 3 -> {P}: positions 2, 3, 4 ambiguous,
# 5 unambiguous.
Y = [2, 2, 2, 3, P]


def test_positions_are_classed_by_hand():
    assert position_classes(X) == X_CLASSES
    assert position_classes(Y) == [FIRST, AMBIGUOUS, AMBIGUOUS, AMBIGUOUS, UNAMBIGUOUS]


def test_teacher_forced_metrics_match_a_hand_count():
    cell = parse("lorem", "copy_L10_uniform_V4")
    bos, sep, eos, pad = (cell.vocab.bos, cell.vocab.sep, cell.vocab.eos, cell.vocab.pad)
    ids = np.full((2, 23), pad)
    labels = np.full((2, 23), IGNORE)
    for r, x in enumerate([X, Y]):
        n = len(x)
        row = [bos, *x, sep, *x, eos]
        ids[r, : len(row)] = row
        labels[r, n + 2 : 2 * n + 3] = row[n + 2 :]
    # Right outputs: the output at j writes labels[j + 1]; then errors at hand-picked
    # positions i of the copy (the output at n + i writes x_i).
    outputs = np.roll(np.where(labels == IGNORE, 0, labels), -1, axis=1)
    for r, wrong in [(0, [1, 4, 5, 9]), (1, [3, 5])]:
        n = len([X, Y][r])
        for i in wrong:
            outputs[r, n + i] = (outputs[r, n + i] + 1) % 4
    got = cell.metrics(outputs, labels)
    # x: unambiguous errors {9} of positions {3, 6, 7, 9}; ambiguous {4, 5} of {2, 4, 5, 8, 10};
    # the error at 1 is in neither. y: unambiguous {5} of {5}; ambiguous {3} of {2, 3, 4}.
    assert got["unambiguous_error_rate"] == pytest.approx(2 / 5)
    assert got["ambiguous_error_rate"] == pytest.approx(3 / 8)
    assert got["ambiguous_error_share"] == pytest.approx(3 / 5)
    assert got["exact_match"] == 0.0 and got["token_accuracy"] == pytest.approx(9 / 15)
    # (The study's scoring would divide x's 2 ambiguous errors by its 3 unambiguous token
    # types {1, 3, P} instead of its 5 ambiguous positions.)
    right = cell.metrics(np.roll(np.where(labels == IGNORE, 0, labels), -1, axis=1), labels)
    assert right["exact_match"] == 1.0 and right["ambiguous_error_rate"] == 0.0
    assert math.isnan(right["ambiguous_error_share"])


# A generated copy of a 14-token paragraph over V = 5 and P = 5, errors well apart:
#   gold   0 1 2 3 P 0 1 4 P 2 3 1 4 P
#   output 0 1 4 3 P 0 1 4 _ 2 0 0 4 P 0 1
# Continuations: 0 -> {1}, 2 -> {3}, 4 -> {P}: one each; 1 -> {2, 4}, 3 -> {P, 1}, P -> {0, 2}:
# ambiguous. Unambiguous positions 2, 4, 7, 9, 11, 14; ambiguous 3, 5, 6, 8, 10, 12, 13.
# Errors: 2 -> 4 at 3 (ambiguous); P left out at 9 (unambiguous); 3 1 -> 0 0 at 11-12, one run
# starting at 11 (unambiguous); 0 1 after the end (the copy goes on).
GOLD = [0, 1, 2, 3, 5, 0, 1, 4, 5, 2, 3, 1, 4, 5]
OUTPUT = [0, 1, 4, 3, 5, 0, 1, 4, 2, 0, 0, 4, 5, 0, 1]


def test_the_alignment_is_the_hand_one():
    ops = [op for op, _, _ in align(GOLD, OUTPUT)]
    assert ops == [MATCH, MATCH, SUBSTITUTE, MATCH, MATCH, MATCH, MATCH, MATCH, DELETE, MATCH,
                   SUBSTITUTE, SUBSTITUTE, MATCH, MATCH, INSERT, INSERT]


def test_a_generated_copy_matches_a_hand_count():
    got = copy_errors(GOLD, OUTPUT)
    assert got == CopyErrors(unambiguous_errors=2, ambiguous_errors=1, first_errors=0,
                             end_errors=1, unambiguous_positions=6, ambiguous_positions=7)
    assert got.rates() == pytest.approx({"unambiguous_error_rate": 2 / 6,
                                         "ambiguous_error_rate": 1 / 7,
                                         "ambiguous_error_share": 1 / 3})
    # A wrong first token, and nothing else.
    assert copy_errors(GOLD, [1, *GOLD[1:]]).first_errors == 1
    assert copy_errors(GOLD, GOLD).rates()["ambiguous_error_rate"] == 0.0


def test_isolated_substitutions_count_alike_both_ways():
    cell = parse("lorem", "copy_L14_V5")
    ex = cell.encode(np.asarray([GOLD], dtype=np.uint8), np.asarray([14]))
    outputs = np.roll(np.where(ex.labels == IGNORE, 0, ex.labels), -1, axis=1)
    generated = list(GOLD)
    for i in (3, 8, 13):  # three ambiguous positions
        outputs[0, 14 + i] = generated[i - 1] = (GOLD[i - 1] + 2) % 5
    rates = copy_errors(GOLD, generated).rates()
    forced = cell.metrics(outputs, ex.labels)
    assert {k: forced[k] for k in rates} == rates
    assert rates == {"unambiguous_error_rate": 0.0, "ambiguous_error_rate": 3 / 7,
                     "ambiguous_error_share": 1.0}


@pytest.mark.parametrize("name,part", [
    ("copy_L4", "L >= 5"),
    ("copy_L40_V1", "2..200"),
    ("copy_L40_V201", "2..200"),
    ("copy_L40_s2l", "'s2l'"),
    ("paste_L40", "'paste'"),
    ("copyL40", "cannot parse"),
    ("copy_L40_uniform_V8_x", "cannot parse"),
    ("copy_L2000", "exceeds 1023"),
])
def test_impossible_cells_are_one_clear_error(name, part):
    with pytest.raises(ValueError) as e:
        parse("lorem", name)
    message = str(e.value)
    assert part in message and len(message.splitlines()) == 1
    assert "copy_L{L}" in message or "6144 tokens" in message


def test_the_grammar_round_trips_and_the_words_are_one_token_each():
    for name in ["copy_L500", "copy_L40_uniform_V16", "copy_L5_V2"]:
        assert str(parse("lorem", name)) == name
    assert len(set(WORDS)) == len(WORDS) == 200 and all(w.isalpha() for w in WORDS)
    cell = parse("lorem", "copy_L500")
    assert cell.vocab.size == 205 and cell.symbol_names()[-1] == "."


def test_chance_is_what_guessing_scores():
    cell = parse("lorem", "copy_L12_V3")
    ex = generate(cell, "validation", None, seed=0)
    rng = np.random.default_rng(0)
    guesses = [cell.metrics(rng.integers(0, cell.alphabet_size, ex.labels.shape), ex.labels)
               for _ in range(50)]
    for metric in ("token_accuracy", "unambiguous_error_rate", "ambiguous_error_rate"):
        scores = np.array([g[metric] for g in guesses])
        chance = chance_level(cell, metric, split_sizes(cell, "validation"))
        assert abs(scores.mean() - chance) <= 4 * scores.std() / np.sqrt(len(scores)) + 1e-9


def test_the_hub_folder_loads_with_its_card(tmp_path):
    out = tmp_path / "lorem"
    cell = parse("lorem", "copy_L12_V3")
    build_folder(out, "lorem", [cell], dataset_card_template("lorem"), train_size=30,
                 progress=False)
    ds = datasets.load_dataset(str(out), "copy_L12_V3")
    assert set(ds) == {"train", "validation", "test", "test_long"}
    row = ds["test"][0]
    assert row["continuations"] == continuations_by_hand(row["source"])
    card = (out / "README.md").read_text()
    assert "2505.21785" in card and "$" not in card.split("## Citation")[0]
    assert "| `copy_L30_V8` | BOS" in card


def test_the_builder_names_configs_of_the_family():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from dataset_builders.lorem.lorem import Lorem

    names = [c.name for c in Lorem.BUILDER_CONFIGS]
    assert Lorem.DEFAULT_CONFIG_NAME == "copy_L500" and "copy_L40_uniform" in names
    assert all(str(parse("lorem", name)) == name for name in names)
