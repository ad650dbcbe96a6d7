"""A probe (N -> outcome) that trains the grid Φ and journals every run as it ends.

Before training, each (lr, seed) run of size N is looked up in the results journal: a
recorded run is reused, never retrained, and a recorded success decides the probe at once.
So a search killed at any point resumes where it stopped.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection
from dataclasses import asdict
from typing import NamedTuple

import torch

from ..data import TokenMap, cell_arrays
from ..results import ResultsFolder, run_key
from ..search import ProbeOutcome
from ..tasks import DISJOINT, TaskCell, train_pool_size
from ..training import RunResult, TrainData, TrainSettings, train_grid
from ..training.grid import winners_first
from .job import SearchJob


def longest_row(cell: TaskCell) -> int:
    """Tokens of the longest row of any split of ``cell`` (its last test split's longest
    length): the positions random offsets train (`TrainSettings.position_offsets`)."""
    return cell.token_length(cell.LENGTH_SPAN * cell.max_len)


def train_data(job: SearchJob, rows: int, tokens: TokenMap | None = None,
               validation: str = DISJOINT) -> TrainData:
    """The first ``rows`` training rows of the job's cell and its validation set under the
    ``validation`` rule (`TrainSettings.validation`), as tensors, in the task's ids or those
    of ``tokens`` (a pretrained model's tokenizer).

    The arrays come in the smallest integer type (int8 for most cells); the trainer widens
    one batch at a time."""
    arrays = cell_arrays(job.cell, job.data_seed, rows, tokens=tokens, validation=validation)
    return TrainData(*(torch.from_numpy(a) for a in (
        arrays.train_input_ids, arrays.train_labels, arrays.val_input_ids,
        arrays.val_labels)), whole_pool=train_pool_size(job.cell, validation),
        positions=longest_row(job.cell))


def best_rank(success: bool, best_val_loss: float | None) -> tuple[bool, float]:
    """How a probe's runs rank for the checks: a success first, then the lowest validation
    loss (None or inf: no evaluation measured one)."""
    return (not success, math.inf if best_val_loss is None else best_val_loss)


class KeptRun(NamedTuple):
    """The best run a probe trained at one size in this sitting: its grid point, its rank
    (`best_rank`) and its final weights (`training.weights`)."""

    lr: float
    seed: int
    rank: tuple[bool, float]
    weights: dict


class TrainPool:
    """A job's training rows and validation set as tensors, generated on first use and held
    for every search and check of the job: at the paper's size they take hundreds of MB and
    seconds to generate.

    Generation is prefix-stable, so the pool is regenerated larger (doubling) only when a
    probe asks for more rows than are held.
    """

    def __init__(self, job: SearchJob, tokens: TokenMap | None = None,
                 validation: str = DISJOINT) -> None:
        self.job = job
        self.validation = validation
        # The ids the job's model reads (`TokenMap`): the task's own unless it is pretrained.
        self.tokens = TokenMap.identity(job.cell.vocab) if tokens is None else tokens
        self.size = train_pool_size(job.cell, validation)
        self._data: TrainData | None = None

    def __call__(self, n: int) -> TrainData:
        """Tensors holding at least the first ``n`` training rows."""
        if self._data is None or self._data.pool_size < n:
            rows = min(self.size, max(n, 2 * (self._data.pool_size if self._data else 0)))
            self._data = train_data(self.job, rows, self.tokens, self.validation)
        return self._data


class JournalProbe:
    """Train-or-recall the grid at size N for one search (or check) of a job.

    ``pool`` is the job's `TrainPool`, shared with its other searches and checks (None: a
    pool of its own)."""

    def __init__(self, job: SearchJob, folder: ResultsFolder, settings: TrainSettings,
                 model_factory: Callable[[], torch.nn.Module], key_fields: dict,
                 on_run: Callable[[dict], None] | None = None,
                 on_eval: Callable[[int, float, int, int, float, float], None] | None = None,
                 pool: TrainPool | None = None,
                 keep: tuple[Collection[int], dict[int, KeptRun]] | None = None):
        self.job = job
        self.folder = folder
        self.settings = settings
        self.model_factory = model_factory
        self.key_fields = key_fields
        self.on_run = on_run
        # (n, lr, seed, step, val_loss, train_loss) at every evaluation of every run here.
        self.on_eval = on_eval
        self.pool = pool if pool is not None else TrainPool(
            job, validation=settings.validation)
        self.pool_size = self.pool.size
        # What the checks encode their rows with and read predictions back through.
        self.tokens = self.pool.tokens
        # The grid points that succeeded at this search's earlier probes, latest first: a
        # probe trains them first, so where runs train one at a time a succeeding probe
        # usually costs one run. Rebuilt as a resumed search recalls its probes.
        self.winners: list[tuple[float, int]] = []
        # The sizes at which the best run's final weights are kept, and where: {n: KeptRun},
        # shared with the job's other probes, so that a check at a size the search (or the
        # check itself) trained in this sitting scores its best run without training it
        # again (`best_run.best_model`). One model per size, not the grid's.
        self.keep_at, self.weights = keep if keep is not None else ((), {})

    def run_key(self, n: int, lr: float, seed: int) -> str:
        return run_key(kind="run", n=int(n), lr=float(lr), seed=int(seed), **self.key_fields)

    def data(self, n: int) -> TrainData:
        """Tensors holding at least the first ``n`` training rows (`TrainPool`)."""
        return self.pool(n)

    def _record(self, n: int, result: RunResult) -> dict:
        row = self.folder.append_run(self.run_key(n, result.lr, result.seed),
                                     {**self.key_fields, "n": n, **asdict(result)})
        if self.on_run is not None:
            self.on_run(row)
        return row

    def _keep(self, n: int, result: RunResult, weights: dict) -> None:
        rank = best_rank(result.success, result.best_val_loss)
        held = self.weights.get(n)
        if held is None or rank < held.rank:
            self.weights[n] = KeptRun(result.lr, result.seed, rank, weights)

    def __call__(self, n: int) -> ProbeOutcome:
        start = time.perf_counter()
        grid = self.settings.grid
        recorded = {p: r for p in grid if (r := self.folder.find_run(self.run_key(n, *p)))}
        # What the recalled runs cost when they were trained, in an earlier sitting: without
        # it a resumed search's wall time would count only its last sitting.
        recalled_s = sum(float(r.get("wall_s") or 0.0) for r in recorded.values())
        decided = self.settings.stop_on_first_success and any(
            r["success"] for r in recorded.values())
        if not decided and len(recorded) < len(grid):
            results = train_grid(self.model_factory, self.data(n), n, self.settings,
                                 on_run_done=lambda r: recorded.__setitem__(
                                     (r.lr, r.seed), self._record(n, r)),
                                 skip=set(recorded), first=self.winners,
                                 on_eval=None if self.on_eval is None else (
                                     lambda lr, seed, step, loss, train: self.on_eval(
                                         n, lr, seed, step, loss, train)),
                                 on_weights=(lambda r, w: self._keep(n, r, w))
                                 if n in self.keep_at else None)
            # A trainer that returns without calling back still gets every run journaled.
            for r in results:
                if (r.lr, r.seed) not in recorded:
                    recorded[(r.lr, r.seed)] = self._record(n, r)
        runs = tuple(recorded[p] for p in grid if p in recorded)
        self.winners = winners_first(
            [p for p in grid if p in recorded and recorded[p]["success"]], self.winners)
        losses = [r["best_val_loss"] for r in runs if r["best_val_loss"] is not None]
        return ProbeOutcome(
            n=n, success=any(r["success"] for r in runs),
            best_val_loss=min(losses, default=math.inf),
            steps=sum(int(r["steps"]) for r in runs), runs=runs,
            wall_s=time.perf_counter() - start + recalled_s,
        )
