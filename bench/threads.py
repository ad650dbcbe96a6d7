"""Searches per hour on the reference cell: one 2-thread process vs two 1-thread ones."""

import multiprocessing as mp
import time

import torch

from .common import REFERENCE_CELL, reference_settings, search_cell
from .options import BenchOptions


def _one_search(threads: int) -> float:
    torch.set_num_threads(threads)
    return search_cell(*REFERENCE_CELL, "dense_ssm", reference_settings(True))["wall_s"]


def run(options: BenchOptions) -> dict:
    ctx = mp.get_context("spawn")
    rounds = 1 if options.quick else 2
    t = time.perf_counter()
    for _ in range(2 * rounds):
        with ctx.Pool(1) as pool:
            pool.apply(_one_search, (2,))
    one_by_two = 2 * rounds / (time.perf_counter() - t) * 3600
    t = time.perf_counter()
    with ctx.Pool(2) as pool:
        pool.map(_one_search, [1] * (2 * rounds))
    two_by_one = 2 * rounds / (time.perf_counter() - t) * 3600
    return {
        "searches_per_hour_1proc_x_2threads": one_by_two,
        "searches_per_hour_2procs_x_1thread": two_by_one,
    }
