"""The machine's fp32 matrix-multiply rate: the practical peak every achieved rate is
compared with."""

import torch

from .common import best_of
from .options import BenchOptions


def run(options: BenchOptions) -> dict:
    n = 1024
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    seconds = best_of(lambda: [a @ b for _ in range(10)], 3 if options.quick else 5) / 10
    return {"gemm_gflops": 2 * n**3 / seconds / 1e9, "torch_threads": torch.get_num_threads()}
