"""Makespan of a skewed fake campaign (sleeps) over its lower bound max(work / P, the
longest job), static round robin against the dynamic queue, at P = 2, 4 and 8 processes,
with the jobs in sweep order and costliest first."""

import socket
import time

import torch.distributed as dist
import torch.multiprocessing as mp

from hf_induction.runner.schedule import my_jobs

from .options import BenchOptions


def _costs(total_s: float) -> list[float]:
    """A sweep's skew: 4 models whose searches cost 1, 3, 10 and 30 units, 12 cells each whose
    lengths scale the cost by 1 to 2.5, listed as a sweep lists them (a model's cells together,
    cheapest model first), scaled to ``total_s`` seconds of work."""
    units = [m * (1 + 0.5 * (c % 4)) for m in (1, 3, 10, 30) for c in range(12)]
    return [total_s * u / sum(units) for u in units]


def _worker(rank: int, world: int, port: int, cases: list, answers) -> None:
    """One process of the fake campaign: each job sleeps its cost; per case, the time from a
    common barrier to this process's last job, and the jobs it ran."""
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    for name, schedule, costs in cases:
        keys = [f"job{i}" for i in range(len(costs))]
        dist.barrier()
        start = time.perf_counter()
        ran = []
        for i in my_jobs(list(range(len(costs))), keys, rank, world, schedule):
            time.sleep(costs[i])
            ran.append(i)
        answers.put((name, schedule, rank, time.perf_counter() - start, ran))
    dist.barrier()
    dist.destroy_process_group()


def run(options: BenchOptions) -> dict:
    out = {}
    for world in (2, 4, 8):
        costs = _costs((2.0 if options.quick else 6.0) * world)
        orders = {"sweep_order": costs, "costliest_first": sorted(costs, reverse=True)}
        cases = [(order, schedule, c) for order, c in orders.items()
                 for schedule in ("static", "dynamic")]
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        ctx = mp.get_context("spawn")
        answers = ctx.Queue()
        procs = [ctx.Process(target=_worker, args=(r, world, port, cases, answers))
                 for r in range(world)]
        for proc in procs:
            proc.start()
        got = [answers.get(timeout=600) for _ in range(world * len(cases))]
        for proc in procs:
            proc.join()
        for order, schedule, c in cases:
            mine = [g for g in got if g[0] == order and g[1] == schedule]
            ran = sorted(i for g in mine for i in g[4])
            assert ran == list(range(len(c))), (order, schedule, "a job ran twice or never")
            bound = max(sum(c) / world, max(c))
            out[f"scheduling_P{world}_{order}_{schedule}"] = max(g[3] for g in mine) / bound
    return out
