"""What several sections share: timing, the benchmark batch, a grid that trains a fixed
number of steps, and one whole N* search of a small cell (`search_cell`)."""

from __future__ import annotations

import dataclasses
import time

import torch

from hf_induction.data import cell_arrays
from hf_induction.models import build_model
from hf_induction.search import ProbeOutcome, SearchSettings, run_search
from hf_induction.tasks import WordProblemCell, train_pool_size, vocab_of
from hf_induction.training import (
    TrainData,
    TrainSettings,
    causal_lm_loss,
    train_grid,
    train_run,
)
from hf_induction.training.grid import winners_first
from hf_induction.training.steps import logits_of

from .hf_trainer_baseline import trainer_grid

VOCAB = 9  # Z_5 and its four special tokens
PAPER_LENGTH = 20
REFERENCE_CELL = ("modadd", "acot_L4_m3")


def best_of(fn, repeat: int) -> float:
    """Fastest of ``repeat`` timings: the least disturbed by other work on the machine."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def train_steps(
    model, steps: int, batch: int = 64, length: int = PAPER_LENGTH, warm_up: bool = True
) -> float:
    """Seconds per Adam step (forward, causal-LM loss, backward, update), best of ``steps``,
    after one untimed step unless ``warm_up`` is False."""
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, VOCAB - 4, (batch, length), generator=g)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)

    def step():
        loss = causal_lm_loss(logits_of(model(input_ids=ids)), ids)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    if warm_up:
        step()
    return best_of(step, steps)


def echo_data(vocab: int = VOCAB - 4, max_len: int = PAPER_LENGTH, pool: int = 2048) -> TrainData:
    g = torch.Generator().manual_seed(0)

    def split(rows):
        # Next-token prediction of random tokens (labels = input_ids, the model shifts): the
        # cost of a step, not a task.
        ids = torch.randint(0, vocab, (rows, max_len), generator=g)
        labels = ids.clone()
        labels[:, 0] = -100
        return ids, labels

    return TrainData(*split(pool), *split(256))


def timing_settings(steps: int, lrs, seeds=(10, 20, 30, 40, 50), device: str = "cpu"):
    """A stacked grid that trains exactly ``steps`` steps per run: ε out of reach, no stopping."""
    return TrainSettings(max_steps=steps, eval_every=steps, epsilon=1e-30,
                         stop_on_first_success=False, lrs=tuple(lrs), seeds=tuple(seeds),
                         device=device, grid_mode="stacked")


def stacked_and_one(factory, data, settings) -> tuple[float, float]:
    """Seconds of the whole grid trained stacked, and of one of its runs alone (after one
    untimed step, so that neither pays for the first allocations)."""
    train_run(factory, data, 1024, 1e-3, 10, dataclasses.replace(settings, max_steps=1))
    t = time.perf_counter()
    train_grid(factory, data, 1024, settings)
    stacked = time.perf_counter() - t
    t = time.perf_counter()
    train_run(factory, data, 1024, 1e-3, 10, settings)
    return stacked, time.perf_counter() - t


def cell_data(dataset: str, config: str) -> tuple[TrainData, int]:
    """A cell's whole training pool and validation set as tensors, and its vocabulary size."""
    cfg = WordProblemCell.parse(dataset, config)
    pool = train_pool_size(cfg)
    a = cell_arrays(cfg, 0, pool)
    tensors = (a.train_input_ids, a.train_labels, a.val_input_ids, a.val_labels)
    return TrainData(*(torch.from_numpy(x) for x in tensors), whole_pool=pool), vocab_of(cfg).size


def reference_settings(quick: bool) -> TrainSettings:
    # Learning rates the tiny Dense-SSM learns Z_3 with in a few hundred steps (the paper's
    # 1e-3..1e-5 need far more steps than a benchmark can afford on 2 cores).
    return TrainSettings(
        max_steps=300 if quick else 600,
        eval_every=25,
        lrs=(0.1, 0.03, 0.01),
        seeds=(10,) if quick else (10, 20, 30, 40, 50),
    )


def search_cell(
    dataset: str,
    config: str,
    model: str,
    settings,
    trainer: str = "ours",
    mode: str = "paper",
    batches: str = "protocol",
    n_start: int = 16,
    on_eval=None,
    ordered: bool = False,
) -> dict:
    """One whole N* search of a small cell; ``trainer`` "ours" (train_grid) or "hf_trainer"
    (whose batch order is ``batches``: see `bench.hf_trainer_baseline`); the refined search
    starts at ``n_start``; ``on_eval(n, lr, seed, step, val_loss, train_loss)`` hears every
    evaluation of our trainer; ``ordered`` trains first the points that succeeded at earlier
    probes, as `JournalProbe` does."""
    data, vocab = cell_data(dataset, config)

    def factory():
        return build_model(model, vocab, "tiny")

    winners: list = []

    def probe(n: int) -> ProbeOutcome:
        nonlocal winners
        t = time.perf_counter()
        if trainer == "ours":
            runs = train_grid(factory, data, n, settings, on_eval=None if on_eval is None else (
                lambda *evaluation: on_eval(n, *evaluation)), first=winners)
            if ordered:
                winners = winners_first([(r.lr, r.seed) for r in runs if r.success], winners)
        else:
            runs = trainer_grid(factory, data, n, settings, batches)
        return ProbeOutcome(
            n=n,
            success=any(r.success for r in runs),
            best_val_loss=min(r.best_val_loss for r in runs),
            steps=sum(r.steps for r in runs),
            wall_s=time.perf_counter() - t,
        )

    search = SearchSettings(mode=mode, n_max=settings.max_steps * settings.batch_size,
                            n_start=n_start)
    t = time.perf_counter()
    result = run_search(probe, data.pool_size, search)
    return {
        "n_star": result.n_star,
        "largest_failing": result.largest_failing,
        "wall_s": time.perf_counter() - t,
        "steps": result.total_steps,
        "probes": len(result.probes),
    }
