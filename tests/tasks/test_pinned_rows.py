"""The rows of one cell of each family and each length law, pinned by a hash of every split:
published datasets and results mean these rows, so a change of a single token (in a generator,
an encoder or a name's reading) fails here and needs a new `GENERATOR_VERSION`."""

import hashlib

import numpy as np
import pytest

from hf_induction.tasks import family, generate, parse

# dataset, config name -> the first 16 hex digits of the rows' sha256 (`rows_digest`).
PINNED = {
    ("modadd", "acot_L6"): "98a0138612690a6d",
    ("modadd", "cot_L6_uniform"): "7af76e7daff2d9f0",
    ("modadd", "outcome_L6_s2l_m7"): "b53be8f7775b138a",
    ("permutation", "acot_L5_S4"): "0ce99c4b94884643",
    ("permutation", "cot_L5_uniform"): "2415ae844df99693",
    ("permutation", "outcome_L5_s2l_S3"): "c4c5b80cf1db3fb2",
    ("retrieval", "NRLast_L6"): "49379fb90a69051a",
    ("retrieval", "UR_L6_uniform_V8"): "8cf28a130960aafb",
    ("retrieval", "UL_L5_s2l_V4"): "545afbc5c7b8eed8",
    ("copy", "UF_L4"): "db79636f8d425b6e",
    ("copy", "NB_L6_uniform_V8"): "9d4fb4f9c2f55978",
    ("copy", "UB_L3_s2l_V12"): "8904fae82a52471a",
    ("lorem", "copy_L12"): "7ac5ea9b8e725ad9",
    ("lorem", "copy_L14_uniform_V8"): "e1c77909ed4d8152",
    ("git", "revert_L3"): "2bef8286a24e787e",
    ("git", "cherry_pick_L3_uniform"): "5315a8e80e09741e",
}
# The dataset cards' token-layout tables, drawn from each family's encoder.
PINNED_LAYOUTS = {
    "modadd": "3a8cb2a1056736a1", "permutation": "3a8cb2a1056736a1",
    "retrieval": "aaa20ab1152f570c", "copy": "a1b38d2378046cfe",
    "lorem": "d0dd67088d8370e8", "git": "99bb016503bd018b",
}


def rows_digest(cell) -> str:
    """Every split of ``cell`` (300 training rows, the other splits whole, seed 3): lengths,
    input_ids, labels, token lengths and the semantic columns, after the canonical name."""
    digest = hashlib.sha256(str(cell).encode())
    for split in cell.splits:
        ex = generate(cell, split, 300 if split == "train" else None, seed=3)
        for array in (ex.lengths, ex.input_ids, ex.labels, ex.token_lengths):
            digest.update(np.ascontiguousarray(array).tobytes())
        for name in sorted(ex.columns):
            digest.update(name.encode())
            digest.update(np.ascontiguousarray(ex.columns[name]).tobytes())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("dataset,name", sorted(PINNED))
def test_the_rows_of_a_cell_are_the_published_ones(dataset, name):
    assert rows_digest(parse(dataset, name)) == PINNED[dataset, name]


@pytest.mark.parametrize("dataset", sorted(PINNED_LAYOUTS))
def test_the_cards_layout_table_is_the_published_one(dataset):
    table = family(dataset).layout_table()
    assert hashlib.sha256(table.encode()).hexdigest()[:16] == PINNED_LAYOUTS[dataset]
