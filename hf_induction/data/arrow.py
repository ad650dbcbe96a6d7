"""Examples (padded numpy arrays) to Arrow list columns without a loop per example."""

from __future__ import annotations

import datasets
import numpy as np
import pyarrow as pa

from ..tasks import Examples

_SEQ = datasets.List(datasets.Value("int32"))
FEATURES = datasets.Features({
    "input_ids": _SEQ, "labels": _SEQ, "elements": _SEQ, "states": _SEQ,
    "length": datasets.Value("int32"),
})


def _ragged(padded: np.ndarray, lengths: np.ndarray) -> pa.ListArray:
    """Rows of ``padded`` cut to ``lengths``, as an Arrow list<int32> column."""
    mask = np.arange(padded.shape[1])[None, :] < lengths[:, None]
    values = pa.array(padded[mask].astype(np.int32))
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def examples_to_table(ex: Examples) -> pa.Table:
    table = pa.table({
        "input_ids": _ragged(ex.input_ids, ex.token_lengths),
        "labels": _ragged(ex.labels, ex.token_lengths),
        "elements": _ragged(ex.elements, ex.lengths),
        "states": _ragged(ex.states, ex.lengths),
        "length": pa.array(ex.lengths.astype(np.int32)),
    })
    return table.cast(FEATURES.arrow_schema)


def to_dataset(ex: Examples, split: str | None = None) -> datasets.Dataset:
    """A `datasets.Dataset` over the examples (in memory)."""
    return datasets.Dataset(examples_to_table(ex), info=datasets.DatasetInfo(features=FEATURES),
                            split=split)
