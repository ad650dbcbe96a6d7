"""The arrays a training run needs: the first N training rows and the validation set."""

from __future__ import annotations

import mmap
import tempfile
from dataclasses import dataclass

import numpy as np

from ..tasks import DISJOINT, IGNORE, TaskCell, Vocab, generate, sample_split
from .token_map import TokenMap

# Training rows are encoded this many at a time into the final arrays, so that the int64
# rows `TaskCell.encode` returns never exist for more than one chunk (a paper-size pool of
# 16M cot rows of length 30 is 2 GB in int8 and would be 16 GB in int64).
ENCODE_CHUNK = 1 << 16


def token_dtype(vocab: Vocab | TokenMap) -> np.dtype:
    """The smallest signed integer type that holds every token id (of a vocabulary of
    ``vocab.size``) and -100."""
    for dtype in (np.int8, np.int16, np.int32):
        if vocab.size - 1 <= np.iinfo(dtype).max and IGNORE >= np.iinfo(dtype).min:
            return np.dtype(dtype)
    return np.dtype(np.int64)


@dataclass(frozen=True)
class CellArrays:
    """Padded arrays of one cell in `token_dtype`; ``train_*`` rows are nested training sets."""

    config: TaskCell
    seed: int
    vocab: Vocab
    # The ids the rows are written in: the cell's own, or a pretrained tokenizer's.
    tokens: TokenMap
    train_input_ids: np.ndarray  # [N_max, T]
    train_labels: np.ndarray  # [N_max, T]
    val_input_ids: np.ndarray  # [N_val, T']
    val_labels: np.ndarray  # [N_val, T']


# Training arrays larger than this are backed by an unlinked temporary file (np.memmap)
# instead of anonymous memory: the pages written are handed back to the page cache chunk by
# chunk, and those a run reads are clean file pages the kernel may reclaim, so a paper-size
# pool does not have to fit in RAM beside everything else (docs/benchmarks.md, memory).
MEMMAP_BYTES = 1 << 28


def _array(shape: tuple[int, int], dtype: np.dtype) -> np.ndarray:
    """Uninitialised rows: `encode_rows` writes every element."""
    if shape[0] * shape[1] * dtype.itemsize <= MEMMAP_BYTES:
        return np.empty(shape, dtype=dtype)
    # The file is unlinked at once; the mapping keeps it until the array is freed.
    return np.memmap(tempfile.TemporaryFile(prefix="hf-induction-rows-"), dtype=dtype,
                     mode="w+", shape=shape)


def _release(array: np.ndarray, start: int, stop: int) -> None:
    """Hand the written rows [start, stop) of a memory-mapped array back to the page cache."""
    mapping = getattr(array, "_mmap", None)
    if mapping is None or not hasattr(mmap, "MADV_DONTNEED"):
        return
    row = array.strides[0]
    first = start * row // mmap.PAGESIZE * mmap.PAGESIZE
    length = min(-(-stop * row // mmap.PAGESIZE) * mmap.PAGESIZE, len(mapping)) - first
    mapping.flush(first, length)
    mapping.madvise(mmap.MADV_DONTNEED, first, length)


def encode_rows(cell: TaskCell, items: np.ndarray, lengths: np.ndarray,
                dtype: np.dtype, chunk: int = ENCODE_CHUNK,
                tokens: TokenMap | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``cell.encode(items, lengths)``'s input_ids and labels, in ``dtype``, ``chunk`` rows
    at a time; the same arrays as encoding all rows at once (tests/data/test_arrays.py).
    With ``tokens``, in its ids (`TokenMap.encode`)."""
    tokens = TokenMap.identity(cell.vocab) if tokens is None else tokens
    # The width is that of the longest row: encode one row of each length to learn it.
    firsts = np.unique(lengths, return_index=True)[1]
    width = int(cell.encode(items[firsts], lengths[firsts]).token_lengths.max(initial=0))
    ids = _array((len(lengths), width), dtype)
    labels = _array((len(lengths), width), dtype)
    for start in range(0, len(lengths), chunk):
        stop = min(start + chunk, len(lengths))
        ex = cell.encode(items[start:stop], lengths[start:stop])
        t = ex.input_ids.shape[1]
        ids[start:stop, :t], ids[start:stop, t:] = tokens.encode(ex.input_ids), tokens.pad
        labels[start:stop, :t], labels[start:stop, t:] = tokens.encode(ex.labels), IGNORE
        _release(ids, start, stop)
        _release(labels, start, stop)
    return ids, labels


def cell_arrays(cfg: TaskCell, seed: int, max_train: int,
                tokens: TokenMap | None = None, validation: str = DISJOINT) -> CellArrays:
    """Training rows 0..max_train-1 and the validation set of ``cfg`` for ``seed`` under the
    ``validation`` rule (`tasks.VALIDATION_RULES`), in the cell's ids or, with ``tokens``, in
    a pretrained tokenizer's (`TokenMap`): this is where a cell's examples become a model's
    ids."""
    tokens = TokenMap.identity(cfg.vocab) if tokens is None else tokens
    dtype = token_dtype(tokens)
    items, lengths = sample_split(cfg, "train", max_train, seed, validation)
    train_ids, train_labels = encode_rows(cfg, items, lengths, dtype, tokens=tokens)
    del items
    val = generate(cfg, "validation", None, seed, validation)
    return CellArrays(cfg, seed, cfg.vocab, tokens, train_ids, train_labels,
                      tokens.encode(val.input_ids).astype(dtype),
                      tokens.encode(val.labels).astype(dtype))
