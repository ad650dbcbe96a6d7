"""The training arrays at scale: chunked and memory-mapped encoding give the same rows as
encoding at once, in the smallest integer type; hashed de-duplication equals the byte sort."""

import numpy as np
import pytest
import torch

from hf_induction.data import arrays as data_arrays
from hf_induction.data import cell_arrays
from hf_induction.tasks import WordProblemCell, generate, registry, sampling
from hf_induction.training import TrainData

CELLS = [("modadd", "cot_L6_uniform"), ("modadd", "acot_L5"), ("permutation", "outcome_L4_S3"),
         ("retrieval", "NRFirst_L8"), ("copy", "UF_L4_uniform")]


@pytest.mark.parametrize("dataset, config", CELLS)
def test_chunked_and_memory_mapped_rows_equal_one_encoding(dataset, config, monkeypatch):
    cfg = registry.parse(dataset, config)
    n = min(3000, sampling.train_pool_size(cfg))
    whole = generate(cfg, "train", n, 0)
    monkeypatch.setattr(data_arrays, "ENCODE_CHUNK", 257)
    monkeypatch.setattr(data_arrays, "MEMMAP_BYTES", 1024)  # every training array is a memmap
    arrays = cell_arrays(cfg, 0, n)
    assert isinstance(arrays.train_input_ids, np.memmap)
    assert arrays.train_input_ids.dtype == np.int8
    np.testing.assert_array_equal(arrays.train_input_ids, whole.input_ids)
    np.testing.assert_array_equal(arrays.train_labels, whole.labels)
    val = generate(cfg, "validation", None, 0)
    np.testing.assert_array_equal(arrays.val_labels, val.labels)
    # The trainer takes the memory-mapped int8 rows as they are.
    data = TrainData(*(torch.from_numpy(np.asarray(a)) for a in (
        arrays.train_input_ids, arrays.train_labels, arrays.val_input_ids, arrays.val_labels)))
    assert data.train_input_ids.dtype == torch.int8 and data.pool_size == n


def test_token_dtype_is_the_smallest_that_holds_ids_and_ignore():
    class Vocab:
        def __init__(self, size):
            self.size = size

    assert data_arrays.token_dtype(Vocab(128)) == np.int8
    assert data_arrays.token_dtype(Vocab(129)) == np.int16
    assert data_arrays.token_dtype(Vocab(40_000)) == np.int32


@pytest.mark.parametrize("shape, high", [((4000, 3), 3), ((3000, 2), 6), ((20000, 12), 120),
                                          ((5, 1), 2)])
def test_hashed_first_occurrences_equal_the_byte_sort(shape, high):
    rows = np.random.default_rng(0).integers(0, high, size=shape).astype(np.int8)
    np.testing.assert_array_equal(sampling.first_occurrences(rows),
                                  sampling.first_occurrences_reference(rows))


def test_a_hash_collision_falls_back_to_the_byte_sort(monkeypatch):
    rows = np.random.default_rng(1).integers(0, 4, size=(500, 3)).astype(np.int8)
    # Every row hashes alike: distinct rows collide, and the reference must decide.
    monkeypatch.setattr(sampling, "_row_hashes", lambda r: np.zeros(len(r), dtype=np.uint64))
    np.testing.assert_array_equal(sampling.first_occurrences(rows),
                                  sampling.first_occurrences_reference(rows))


def test_a_large_pool_stream_is_unchanged(monkeypatch):
    # A pool too large to enumerate goes through the hashed de-duplication: the stream is the
    # one the byte sort gives.
    cfg = WordProblemCell.parse("permutation", "acot_L10_S3")
    fast = sampling.stream(cfg, 10, 5000, 3)
    monkeypatch.setattr(sampling, "first_occurrences",
                        lambda rows, hashes=None: sampling.first_occurrences_reference(rows))
    np.testing.assert_array_equal(fast, sampling.stream(cfg, 10, 5000, 3))
