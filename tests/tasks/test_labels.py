"""Every label of every format x dist x group, recomputed by hand."""

import pytest

from hf_induction.tasks import DISTS, FORMATS, WordProblemCell, generate
from tests.tasks.reference import example_by_hand, states_by_hand

GROUPS = [("modadd", 5), ("modadd", 7), ("permutation", 3), ("permutation", 5)]
CELLS = [
    pytest.param(ds, p, fmt, dist, id=f"{ds}{p}-{fmt}-{dist}")
    for ds, p in GROUPS for fmt in FORMATS for dist in DISTS
]


@pytest.mark.parametrize("dataset,param,fmt,dist", CELLS)
@pytest.mark.parametrize("split", ["train", "validation", "test"])
def test_every_label_by_brute_force(dataset, param, fmt, dist, split):
    cfg = WordProblemCell(dataset, fmt, 4, dist, param)
    ex = generate(cfg, split, 60 if split != "validation" else None, seed=3)
    order = cfg.group.order
    assert len(ex) > 0
    for i in range(min(len(ex), 150)):
        n = int(ex.lengths[i])
        elements = [int(x) for x in ex.elements[i, :n]]
        assert all(0 <= g < order for g in elements)
        states = states_by_hand(dataset, param, elements)
        assert [int(s) for s in ex.states[i, :n]] == states
        ids, labels = example_by_hand(fmt, order, elements, states)
        t = int(ex.token_lengths[i])
        assert ex.input_ids[i, :t].tolist() == ids
        assert ex.labels[i, :t].tolist() == labels
        # Padding: PAD in the inputs and nothing supervised.
        assert (ex.input_ids[i, t:] == order + 3).all()
        assert (ex.labels[i, t:] == -100).all()
