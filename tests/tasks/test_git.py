"""Git: rows recomputed from their history, the exact pool and uniform draw, splits, the line
metrics against hand counts, grammar, and the Hub folder."""

import itertools
import math

import datasets
import numpy as np
import pytest

from hf_induction.data import build_folder
from hf_induction.tasks import generate, git, parse
from hf_induction.tasks.chance import chance_level, split_sizes
from hf_induction.templates import dataset_card_template

IGNORE = -100
HEX = "0123456789abcdef"
ACTIONS = ["Add", "Remove", "Fix", "Refactor", "Update", "Improve", "Optimize", "Document",
           "Cleanup", "Merge", "Revert", "Bugfix"]
TOPICS = ["authentication", "API", "search", "database", "UI", "CLI", "logging", "tests",
          "deployment", "config", "caching"]


def history_by_hand(tokens, names):
    """A history's lines as (hash string, action, topic), from its tokens read as names."""
    words = [names[t] for t in tokens]
    assert len(words) % 10 == 0
    lines = [words[i : i + 10] for i in range(0, len(words), 10)]
    for line in lines:
        assert all(len(d) == 1 and d in HEX for d in line[:7]) and line[9] == "NL"
        assert line[7] in ACTIONS and line[8] in TOPICS
    return [("".join(line[:7]), line[7], line[8]) for line in lines]


@pytest.mark.parametrize("name", ["revert_L3", "cherry_pick_L4_uniform", "cherry_pick_L6"])
def test_every_row_by_brute_force(name):
    cell = parse("git", name)
    names = cell.symbol_names()
    vocab = cell.vocab
    for split in cell.splits:
        ex = generate(cell, split, 200 if split == "train" else None, seed=3)
        assert set(ex.lengths.tolist()) <= set(cell.lengths if split in ("train", "validation")
                                              else cell.test_splits[split])
        for i in range(0, len(ex), max(1, len(ex) // 60)):
            n, t = int(ex.lengths[i]), int(ex.token_lengths[i])
            ids = ex.input_ids[i, :t].tolist()
            assert ids[0] == vocab.bos and ids[10 * n + 1] == vocab.sep and ids[-1] == vocab.eos
            source = history_by_hand(ids[1 : 10 * n + 1], names)
            target = history_by_hand(ids[10 * n + 2 : -1], names)
            assert len(source) == n and len({h for h, _, _ in source}) == n
            assert target == (source[::-1] if name.startswith("cherry") else source)
            assert ex.labels[i, :t].tolist() == [IGNORE] * (10 * n + 2) + ids[10 * n + 2 :]
            assert ex.hash[i, :n].tolist() == [int(h, 16) for h, _, _ in source]
            assert ex.target_hash[i, :n].tolist() == [int(h, 16) for h, _, _ in target]
            assert [ACTIONS[a] for a in ex.action[i, :n]] == [a for _, a, _ in source]
            assert [TOPICS[a] for a in ex.topic[i, :n]] == [a for _, _, a in source]


def test_the_pool_and_the_draw_on_a_small_alphabet(monkeypatch):
    # With 3 hashes, 2 actions and 1 topic, the histories of 2 lines are every pair of distinct
    # hashes with any actions: 3 x 2 x 2^2 = 24, each drawn equally often.
    monkeypatch.setattr(git, "HASHES", 3)
    monkeypatch.setattr(git, "ACTIONS", ("Add", "Fix"))
    monkeypatch.setattr(git, "TOPICS", ("API",))
    cell = parse("git", "revert_L2")
    brute = [(h1, h2, a1, a2) for h1, h2 in itertools.permutations(range(3), 2)
             for a1, a2 in itertools.product(range(2), repeat=2)]
    assert cell.pool_size(2) == len(brute) == 24
    rows = cell.draw(2, 48_000, np.random.default_rng(0)).reshape(-1, 2, 10)
    hashes = rows[:, :, :7].astype(np.int64) @ (16 ** np.arange(7)[::-1])
    drawn = list(zip(hashes[:, 0], hashes[:, 1], rows[:, 0, 7] - 16, rows[:, 1, 7] - 16,
                     strict=True))
    keys, counts = np.unique(np.array(drawn), axis=0, return_counts=True)
    assert sorted(map(tuple, keys.tolist())) == sorted(brute)
    chi2 = ((counts - 2000) ** 2 / 2000).sum()
    assert chi2 < 23 + 6 * math.sqrt(2 * 23)
    # The stream is the whole pool, each history once.
    every = cell.stream(2, 24, np.random.default_rng(1))
    assert len({tuple(r) for r in every.tolist()}) == 24


def test_the_pool_is_perm_of_hashes_times_messages():
    cell = parse("git", "revert_L5")
    assert cell.pool_size(3) == 16**7 * (16**7 - 1) * (16**7 - 2) * 132**3


def test_hash_digits_and_messages_are_uniform():
    rows = parse("git", "revert_L5").draw(5, 20_000, np.random.default_rng(2)).reshape(-1, 10)
    for column, low, count in [(0, 0, 16), (6, 0, 16), (7, 16, 12), (8, 28, 11)]:
        seen = np.bincount(rows[:, column] - low, minlength=count)
        expected = len(rows) / count
        chi2 = ((seen - expected) ** 2 / expected).sum()
        assert seen.size == count and chi2 < count - 1 + 6 * math.sqrt(2 * (count - 1))


@pytest.mark.parametrize("name", ["revert_L4_uniform", "cherry_pick_L3"])
def test_splits_are_unique_disjoint_nested_and_deterministic(name):
    cell = parse("git", name)

    def items(split, size=None, seed=1):
        ex = generate(cell, split, size, seed=seed)
        return [tuple(ex.hash[i, : ex.lengths[i]].tolist()) + tuple(ex.action[i, : ex.lengths[i]])
                for i in range(len(ex))]

    train, val = items("train", 1500), items("validation")
    every = [train, val, *(items(s) for s in cell.test_splits)]
    assert all(len(set(s)) == len(s) for s in every)
    for a, b in itertools.combinations(every, 2):
        assert not set(a) & set(b)
    assert items("train", 500) == train[:500]
    assert items("validation") == val and items("validation", seed=2) != val


def test_line_metrics_match_a_hand_count():
    # Two rows by hand: 2 lines (20 target tokens), then 3 lines (30).
    cell = parse("git", "cherry_pick_L3_uniform")
    eos, pad = cell.vocab.eos, cell.vocab.pad
    ids = np.full((2, 63), pad)
    labels = np.full((2, 63), IGNORE)
    for r, n in enumerate([2, 3]):
        source = [d for i in range(n) for d in [i, 1, 2, 3, 4, 5, 6, 16 + i, 28 + i, 39]]
        target = [d for i in reversed(range(n)) for d in source[10 * i : 10 * i + 10]]
        row = [40, *source, 41, *target, eos]
        ids[r, : len(row)] = row
        labels[r, 10 * n + 2 : 20 * n + 3] = row[10 * n + 2 :]
    outputs = np.roll(np.where(labels == IGNORE, 0, labels), -1, axis=1)
    # Row 1: two wrong tokens, both in its first target line (tokens 1 and 9 of the target,
    # written by the outputs at 10 n + 1 + i - 1); row 2: a wrong EOS only, not a target line's.
    outputs[0, 21 + 0] = (outputs[0, 21] + 1) % 16
    outputs[0, 21 + 8] = 30
    outputs[1, 61] = 0
    got = cell.metrics(outputs, labels)
    # Lines right: 1 of 2, then 3 of 3; rows right: the second; tokens right: 48 of 50.
    assert got == pytest.approx({"exact_match": 0.5, "line_exact_match": 4 / 5,
                                 "token_accuracy": 48 / 50})


@pytest.mark.parametrize("name,part", [
    ("revert_L1", "L >= 2"),
    ("cherry_pick_L4_s2l", "'s2l'"),
    ("rebase_L4", "'rebase'"),
    ("revertL4", "cannot parse"),
    ("revert_L4_v8", "'v8'"),
    ("revert_L4_V8", "git names take no parameter part"),
    ("revert_L200", "exceeds 102"),
])
def test_impossible_cells_are_one_clear_error(name, part):
    with pytest.raises(ValueError) as e:
        parse("git", name)
    message = str(e.value)
    assert part in message and len(message.splitlines()) == 1
    assert "{task}_L{L}" in message or "6144 tokens" in message


def test_the_grammar_round_trips():
    for name in ["revert_L10", "cherry_pick_L20_uniform", "cherry_pick_L2"]:
        assert str(parse("git", name)) == name
    assert parse("git", "cherry_pick_L20_uniform").task == "cherry_pick"


def test_chance_is_what_guessing_scores():
    cell = parse("git", "revert_L2")
    ex = generate(cell, "validation", None, seed=0)
    rng = np.random.default_rng(0)
    guesses = [cell.metrics(rng.integers(0, cell.alphabet_size, ex.labels.shape), ex.labels)
               for _ in range(20)]
    for metric in guesses[0]:
        scores = np.array([g[metric] for g in guesses])
        chance = chance_level(cell, metric, split_sizes(cell, "validation"))
        assert abs(scores.mean() - chance) <= 4 * scores.std() / np.sqrt(len(scores)) + 1e-12
    # All 20 target tokens of a row right by chance: 40^-20, not 40^-2.
    assert chance_level(cell, "exact_match", {2: 1}) == pytest.approx(40.0**-20)


def test_the_hub_folder_loads_with_its_card(tmp_path):
    out = tmp_path / "git"
    build_folder(out, "git", [parse("git", "revert_L2")], dataset_card_template("git"),
                 train_size=30, progress=False)
    ds = datasets.load_dataset(str(out), "revert_L2")
    assert set(ds) == {"train", "validation", "test", "test_long"}
    row = ds["test_long"][0]
    assert len(row["hash"]) == row["length"] and len(row["input_ids"]) == 20 * row["length"] + 3
    card = (out / "README.md").read_text()
    assert "2505.21785" in card and "| `cherry_pick_L2` | BOS" in card


def test_the_builder_names_configs_of_the_family():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from dataset_builders.git.git import Git

    names = [c.name for c in Git.BUILDER_CONFIGS]
    assert Git.DEFAULT_CONFIG_NAME in names
    assert {"revert_L10", "cherry_pick_L20_uniform"} <= set(names)
    assert all(str(parse("git", name)) == name for name in names)
