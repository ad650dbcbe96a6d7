"""Scored positions (row, t, s) recomputed by brute force on task cells and repeated prompts."""

import numpy as np
import pytest
import torch

from hf_induction.analysis import prompts_from_cell, repeated_random_prompts
from hf_induction.tasks import parse
from tests.analysis.reference import IGNORE, positions_by_hand

# Where the next token sits relative to the earlier occurrence s: +1 induction, -1 anti.
CELLS = [("copy", "UF_L5", 1), ("copy", "UB_L6_uniform_V20", -1), ("retrieval", "UR_L6", 1),
         ("retrieval", "UL_L6_uniform", -1), ("copy", "NF_L8_uniform", None),
         ("retrieval", "NRLast_L8", None)]


@pytest.mark.parametrize("dataset,name,step", CELLS)
def test_positions_by_brute_force(dataset, name, step):
    cell = parse(dataset, name)
    groups = prompts_from_cell(cell, 40, seed=3)
    assert sum(len(g) for g in groups) == 40
    widths = [g.input_ids.shape[1] for g in groups]
    assert widths == sorted(set(widths))  # one group per length, shortest first
    for g in groups:
        assert g.input_ids.dtype == torch.long and (g.input_ids != cell.vocab.pad).all()
        expected, candidates = set(), 0
        for row in range(len(g)):
            ids, labels = g.input_ids[row].tolist(), g.labels[row].tolist()
            candidates += sum(label != IGNORE for label in labels[1:])
            expected |= {(row, t, s) for t, s in positions_by_hand(ids, labels)}
        found = list(zip(g.rows.tolist(), g.t.tolist(), g.s.tolist(), strict=True))
        assert len(found) == len(set(found)) == g.n_positions
        assert set(found) == expected and g.n_candidates == candidates
        if step is None:
            continue
        # Unique symbols: every supervised position of copy but SEP's, retrieval's query.
        per_row = (g.input_ids.shape[1] - 3) // 2 if dataset == "copy" else 1
        assert g.n_positions == per_row * len(g)
        for row, t, s in found:
            ids = g.input_ids[row]
            assert ids[s] == ids[t]
            following = g.labels[row, t + 1]
            if following == cell.vocab.eos:  # after the last target: SEP (UF) or BOS (UB)
                assert ids[s + step] == (cell.vocab.sep if step == 1 else cell.vocab.bos)
            else:
                assert ids[s + step] == following


def test_rows_are_drawn_from_the_whole_validation_split():
    groups = prompts_from_cell(parse("copy", "UF_L6_uniform"), 30, seed=0)
    assert len(groups) > 1  # not all of the shortest length
    again = prompts_from_cell(parse("copy", "UF_L6_uniform"), 30, seed=0)
    assert all(torch.equal(a.input_ids, b.input_ids) for a, b in zip(groups, again, strict=True))


@pytest.mark.parametrize("length", [5, 12])
def test_repeated_random_prompts(length):
    symbols = list(range(3, 11))  # 8 symbols: length 12 must repeat them
    p = repeated_random_prompts(symbols, length, 20, seed=1, bos_id=99)
    ids = p.input_ids.numpy()
    assert ids.shape == (20, 2 * length + 1) and (ids[:, 0] == 99).all()
    assert (ids[:, 1 : length + 1] == ids[:, length + 1 :]).all()
    assert np.isin(ids[:, 1:], symbols).all()
    labels = p.labels.numpy()
    assert (labels[:, : length + 2] == IGNORE).all()
    assert (labels[:, length + 2 :] == ids[:, length + 2 :]).all()
    found = set(zip(p.rows.tolist(), p.t.tolist(), p.s.tolist(), strict=True))
    assert found == {(r, length + i, i) for r in range(20) for i in range(1, length)}
    assert p.n_positions == p.n_candidates == 20 * (length - 1)
    if length <= len(symbols):
        assert all(len(set(row[1 : length + 1])) == length for row in ids.tolist())
        by_hand = {(r, t, s) for r in range(20)
                   for t, s in positions_by_hand(ids[r].tolist(), labels[r].tolist())}
        assert found == by_hand


def test_bad_arguments():
    with pytest.raises(ValueError, match="length >= 2"):
        repeated_random_prompts([1, 2], 1, 3, seed=0, bos_id=0)
    with pytest.raises(ValueError, match="positive"):
        prompts_from_cell(parse("copy", "UF_L5"), 0)
