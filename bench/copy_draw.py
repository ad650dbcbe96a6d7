"""Copy's unique sources drawn as before (every row of a 65,536-row first chunk argsorted
whole) against now (the k smallest keys partitioned out, then sorted; first chunks of 1,024
rows, the same stream), on the second study's fine-tuning cell UF_L100_uniform_V300: the
same rows, in one run."""

from __future__ import annotations

import time

import numpy as np

from hf_induction.tasks import copying, parse
from hf_induction.tasks.limits import FIRST_CHUNK
from hf_induction.tasks.sampling import distinct_draws

from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    cell = parse("copy", "UF_L100_uniform_V300")
    dtype = np.int16

    def before(n, count, rng):
        return distinct_draws(lambda r, size: copying.first_of_permutation_reference(
            r.random((size, cell.family_param)), n).astype(dtype), count, rng, first=FIRST_CHUNK)

    out = {}
    cases = [(50, 20), (150, 20)] if options.quick else [(50, 20), (150, 20), (50, 2000),
                                                         (150, 2000)]
    for n, count in cases:
        start = time.perf_counter()
        old = before(n, count, np.random.default_rng(n))
        old_s = time.perf_counter() - start
        start = time.perf_counter()
        new = cell.stream(n, count, np.random.default_rng(n))
        new_s = time.perf_counter() - start
        assert np.array_equal(old, new), "the rows differ"
        out[f"n{n}_rows{count}_before_s"] = old_s
        out[f"n{n}_rows{count}_now_s"] = new_s
        out[f"n{n}_rows{count}_speedup"] = old_s / new_s
    return out
