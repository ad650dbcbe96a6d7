"""Examples (padded numpy arrays) to Arrow list columns without a loop per example."""

from __future__ import annotations

import datasets
import numpy as np
import pyarrow as pa

from ..tasks import SCALAR, SEQUENCE, Examples, TaskCell

_SEQ = datasets.List(datasets.Value("int32"))


def features(cell: TaskCell | type[TaskCell]) -> datasets.Features:
    """The columns of a family's rows: ``input_ids``, ``labels``, its semantic columns, then
    ``length`` (n)."""
    return _features(cell.COLUMNS)


def _features(kinds: dict[str, str]) -> datasets.Features:
    columns = {name: datasets.Value("int32") if kind == SCALAR else _SEQ
               for name, kind in kinds.items()}
    return datasets.Features({"input_ids": _SEQ, "labels": _SEQ, **columns,
                              "length": datasets.Value("int32")})


def _kinds(ex: Examples) -> dict[str, str]:
    # A scalar column has one value per row; a sequence column one per element (n of them).
    return {name: SCALAR if a.ndim == 1 else SEQUENCE for name, a in ex.columns.items()}


def _ragged(padded: np.ndarray, lengths: np.ndarray) -> pa.ListArray:
    """Rows of ``padded`` cut to ``lengths``, as an Arrow list<int32> column."""
    mask = np.arange(padded.shape[1])[None, :] < lengths[:, None]
    values = pa.array(padded[mask].astype(np.int32))
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def examples_to_table(ex: Examples) -> pa.Table:
    """The Arrow table of ``ex``: sequence columns cut to each row's n, scalars as they are."""
    kinds = _kinds(ex)
    columns = {
        name: pa.array(ex.columns[name].astype(np.int32)) if kind == SCALAR
        else _ragged(ex.columns[name], ex.lengths)
        for name, kind in kinds.items()
    }
    table = pa.table({
        "input_ids": _ragged(ex.input_ids, ex.token_lengths),
        "labels": _ragged(ex.labels, ex.token_lengths),
        **columns,
        "length": pa.array(ex.lengths.astype(np.int32)),
    })
    return table.cast(_features(kinds).arrow_schema)


def to_dataset(ex: Examples, split: str | None = None) -> datasets.Dataset:
    """A `datasets.Dataset` over the examples (in memory)."""
    return datasets.Dataset(examples_to_table(ex),
                            info=datasets.DatasetInfo(features=_features(_kinds(ex))),
                            split=split)
