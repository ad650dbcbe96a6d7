"""Benchmarks: prints a table and, with --json FILE, writes the figures.

    python scripts/bench.py [--quick] [--only SECTION ...] [--json FILE]

Sections: generation (examples per second of the task generator), gemm (the machine's
fp32 matrix-multiply rate, the practical peak every achieved rate is compared with),
paper_step (per model, paper preset, batch 64, length 20: step time, analytic FLOPs,
GFLOP/s and its ratio to gemm), dense_ssm_fast_vs_reference, dense_ssm_stacking (15
stacked Dense-SSMs against 15 separate ones per state size), grid_speedup (15 separate
runs over the stacked grid, same steps), search_speedup_vs_trainer (a whole N* search with
transformers.Trainer over ours, same budget, both N*, and the steps spent against the paper
protocol), early_failure (N* with and without the patience rule on small cells), early_decisions
(refined searches of 13 cells with the default forecast rule and without it: N*, steps; with
--replay also the first rule, the known-fate bounds and where the rule's steps go),
threads (searches per hour: 1 process x 2 threads vs 2 processes x 1 thread), scheduling
(a skewed fake campaign's makespan over its lower bound, static split against the dynamic
queue, at 2, 4 and 8 processes).
Ratios are measured side by side in one run; absolute times on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

SECTIONS = {}
# Options of single sections, set from the command line by `main`.
OPTIONS: dict = {"cells": None, "curves": None, "record": None, "replay": None, "forecast": {}}


def section(fn):
    SECTIONS[fn.__name__.removeprefix("bench_")] = fn
    return fn


def best_of(fn, repeat: int) -> float:
    """Fastest of ``repeat`` timings: the least disturbed by other work on the machine."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


@section
def bench_gemm(quick: bool) -> dict:
    import torch

    n = 1024
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    seconds = best_of(lambda: [a @ b for _ in range(10)], 3 if quick else 5) / 10
    return {"gemm_gflops": 2 * n**3 / seconds / 1e9, "torch_threads": torch.get_num_threads()}


@section
def bench_generation(quick: bool) -> dict:
    from hf_induction.tasks import TaskConfig, generate

    rows = 500_000 if quick else 2_000_000
    out = {}
    for name in ("acot_L30", "cot_L30", "acot_L30_uniform"):
        cfg = TaskConfig.parse("modadd", name)
        seconds = best_of(lambda cfg=cfg: generate(cfg, "train", rows, seed=0), 1 if quick else 2)
        out[f"generate_{name}_rows"] = rows
        out[f"generate_{name}_s"] = seconds
        out[f"generate_{name}_rows_per_s"] = rows / seconds
    return out


VOCAB = 9  # Z_5 and its four special tokens
PAPER_LENGTH = 20


def _train_steps(
    model, steps: int, batch: int = 64, length: int = PAPER_LENGTH, warm_up: bool = True
) -> float:
    """Seconds per Adam step (forward, causal-LM loss, backward, update), best of ``steps``,
    after one untimed step unless ``warm_up`` is False."""
    import torch

    from hf_induction.training import causal_lm_loss
    from hf_induction.training.trainer import logits_of

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


@section
def bench_paper_step(quick: bool) -> dict:
    import torch

    from hf_induction.models import build_model
    from hf_induction.models.flops import train_step_flops

    gemm = bench_gemm(quick)["gemm_gflops"]
    out = {"gemm_gflops": gemm}
    for name in ("gpt2", "lstm", "dense_ssm", "mamba"):
        torch.manual_seed(0)
        model = build_model(name, VOCAB, "paper")
        # Mamba's pure-PyTorch path is very slow on the CPU (~15 s a step): one timed step,
        # and in --quick no warm-up step (one-time costs are small against 15 s).
        steps = 1 if name == "mamba" else (2 if quick else 5)
        seconds = _train_steps(model, steps, warm_up=not (quick and name == "mamba"))
        flops = train_step_flops(name, model.config, 64, PAPER_LENGTH)
        out[f"{name}_paper_step_s"] = seconds
        out[f"{name}_paper_flops_per_step"] = flops
        out[f"{name}_paper_gflops"] = flops / seconds / 1e9
        out[f"{name}_paper_ratio_to_gemm"] = flops / seconds / 1e9 / gemm
    return out


@section
def bench_dense_ssm_fast_vs_reference(quick: bool) -> dict:
    """The default (grouped) kernel and all_tokens against the naive reference, same batch."""
    import torch

    from hf_induction.models.dense_ssm.bench import bench_fast_vs_reference

    out = {}
    for kernel in ("grouped", "all_tokens"):
        for backward in (False, True):
            r = bench_fast_vs_reference(
                repeats=1 if quick else 3,
                backward=backward,
                num_threads=torch.get_num_threads(),
                transition_kernel=kernel,
            )
            tag = f"{kernel}_{'fwd_bwd' if backward else 'fwd'}"
            out[f"dense_ssm_fast_{tag}_s"] = r["fast_s"]
            out[f"dense_ssm_reference_{tag}_s"] = r["reference_s"]
            out[f"dense_ssm_fast_vs_reference_{tag}"] = r["ratio"]
    out["dense_ssm_fast_vs_reference"] = out["dense_ssm_fast_vs_reference_grouped_fwd_bwd"]
    return out


@section
def bench_dense_ssm_stacking(quick: bool) -> dict:
    """Forward + backward of 15 Dense-SSMs stacked (`stacked_forward`) against 15 separate
    ones, batch 64, length 20, per state size and kernel: where stacking stops paying."""
    import torch
    from torch.func import stack_module_state

    from hf_induction.models import build_model
    from hf_induction.training import causal_lm_loss

    runs = 15
    g = torch.Generator().manual_seed(0)
    out = {}
    for d in (16, 64, 128, 256):
        for kernel in ("grouped", "all_tokens"):
            models = [
                build_model("dense_ssm", VOCAB, "tiny", hidden_size=d, transition_kernel=kernel)
                for _ in range(runs)
            ]
            params, _ = stack_module_state(models)
            ids = torch.randint(0, VOCAB - 4, (runs, 64, PAPER_LENGTH), generator=g)

            def stacked(models=models, params=params, ids=ids):
                logits = models[0].stacked_forward(params, ids)
                sum(causal_lm_loss(logits[r], ids[r]) for r in range(runs)).backward()

            def separate(models=models, ids=ids):
                for r, model in enumerate(models):
                    causal_lm_loss(model(input_ids=ids[r]).logits, ids[r]).backward()

            repeat = (3 if quick else 10) if d <= 64 else (1 if quick else 3)
            stacked(), separate()  # warm-up
            key = f"dense_ssm_d{d}_{kernel}"
            out[f"{key}_stacked_15_s"] = best_of(stacked, repeat)
            out[f"{key}_separate_15_s"] = best_of(separate, repeat)
            speedup = out[f"{key}_separate_15_s"] / out[f"{key}_stacked_15_s"]
            out[f"{key}_stacking_speedup"] = speedup
    return out


def _echo_data(vocab: int = VOCAB - 4, max_len: int = PAPER_LENGTH, pool: int = 2048):
    import torch

    from hf_induction.training import TrainData

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
    from hf_induction.training import TrainSettings

    return TrainSettings(max_steps=steps, eval_every=steps, epsilon=1e-30,
                         stop_on_first_success=False, lrs=tuple(lrs), seeds=tuple(seeds),
                         device=device, grid_mode="stacked")


def stacked_and_one(factory, data, settings) -> tuple[float, float]:
    """Seconds of the whole grid trained stacked, and of one of its runs alone (after one
    untimed step, so that neither pays for the first allocations)."""
    import dataclasses

    from hf_induction.training import train_grid, train_run

    train_run(factory, data, 1024, 1e-3, 10, dataclasses.replace(settings, max_steps=1))
    t = time.perf_counter()
    train_grid(factory, data, 1024, settings)
    stacked = time.perf_counter() - t
    t = time.perf_counter()
    train_run(factory, data, 1024, 1e-3, 10, settings)
    return stacked, time.perf_counter() - t


@section
def bench_grid_speedup(quick: bool) -> dict:
    """15 runs as one stacked grid vs one run at a time (measured once, x15), same steps."""

    from hf_induction.models import build_model

    data = _echo_data()
    out = {}
    cases = [(m, "tiny", 30 if quick else 100) for m in ("dense_ssm", "lstm", "gpt2")]
    # Mamba has no vmap rule, so its "stacked" grid trains run by run too: a few steps show it.
    cases += [("mamba", "tiny", 10 if quick else 100)]
    cases += [("dense_ssm", "paper", 2 if quick else 5), ("lstm", "paper", 2 if quick else 5)]
    if not quick:
        cases += [("gpt2", "paper", 2)]
    for name, preset, steps in cases:
        settings = timing_settings(steps, (1e-3, 1e-4, 1e-5))

        def factory(name=name, preset=preset):
            return build_model(name, VOCAB, preset)

        stacked, one = stacked_and_one(factory, data, settings)
        key = f"{name}_{preset}"
        out[f"{key}_grid_steps"] = steps
        out[f"{key}_stacked_15_s"] = stacked
        out[f"{key}_separate_15_s"] = 15 * one
        out[f"{key}_grid_speedup"] = 15 * one / stacked
    return out


@section
def bench_gpt2_activation(quick: bool) -> dict:
    """Tiny and paper GPT-2 steps with GPT-2's "gelu_new" against the fused tanh kernel.

    Interleaved rounds, best of each, so load on a shared machine hits both alike.
    """
    import torch

    from hf_induction.models import build_model

    out = {}
    for preset, steps in (("tiny", 20 if quick else 50), ("paper", 1 if quick else 3)):
        best = {"gelu_new": float("inf"), "gelu_pytorch_tanh": float("inf")}
        models = {}
        for act in best:
            torch.manual_seed(0)
            models[act] = build_model("gpt2", VOCAB, preset, activation_function=act)
        for _ in range(3):
            for act, model in models.items():
                best[act] = min(best[act], _train_steps(model, steps))
        out[f"gpt2_{preset}_gelu_new_step_s"] = best["gelu_new"]
        out[f"gpt2_{preset}_gelu_pytorch_tanh_step_s"] = best["gelu_pytorch_tanh"]
        out[f"gpt2_{preset}_fused_gelu_speedup"] = best["gelu_new"] / best["gelu_pytorch_tanh"]
    return out


@section
def bench_compile(quick: bool) -> dict:
    """torch.compile (inductor, dynamic shapes) against eager: tiny-preset training steps.

    Three sequence lengths in turn (11, 16, 22: acot, outcome and cot at L 10 and 20) and a
    fresh model instance after them: the compiled-frame count must not grow with either, or
    a search would recompile per cell and per run. Compile time is reported separately.
    """
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    from hf_induction.models import build_model
    from hf_induction.training import causal_lm_loss
    from hf_induction.training.trainer import logits_of

    rounds = 10 if quick else 30
    names = ("dense_ssm", "gpt2") if quick else ("dense_ssm", "lstm", "gpt2")
    g = torch.Generator().manual_seed(0)
    batches = [torch.randint(0, VOCAB - 4, (64, t), generator=g) for t in (11, 16, 22)]
    out = {}
    for name in names:
        def stepper(model):
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)

            def one_round():  # seconds per step over one pass of the three lengths
                t = time.perf_counter()
                for ids in batches:
                    loss = causal_lm_loss(logits_of(model(input_ids=ids)), ids)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                return (time.perf_counter() - t) / len(batches)
            return one_round

        torch.manual_seed(0)
        eager = stepper(build_model(name, VOCAB, "tiny"))
        torch._dynamo.reset()
        counters.clear()
        compiled = stepper(torch.compile(build_model(name, VOCAB, "tiny"), dynamic=True))
        eager()
        compile_s = compiled() * len(batches)
        frames = counters["frames"]["ok"]
        # Interleaved rounds, best of each: load on a shared machine hits both alike.
        best_eager = best_compiled = float("inf")
        for _ in range(rounds):
            best_eager = min(best_eager, eager())
            best_compiled = min(best_compiled, compiled())
        stepper(torch.compile(build_model(name, VOCAB, "tiny"), dynamic=True))()
        out[f"{name}_eager_step_ms"] = best_eager * 1e3
        out[f"{name}_compiled_step_ms"] = best_compiled * 1e3
        out[f"{name}_compile_speedup"] = best_eager / best_compiled
        out[f"{name}_compile_s"] = compile_s
        out[f"{name}_frames_compiled"] = frames
        out[f"{name}_frames_recompiled_later"] = counters["frames"]["ok"] - frames
    return out


REFERENCE_CELL = ("modadd", "acot_L4_m3")


def _cell_data(dataset: str, config: str):
    import torch

    from hf_induction.data import cell_arrays
    from hf_induction.tasks import TaskConfig, train_pool_size, vocab_of
    from hf_induction.training import TrainData

    cfg = TaskConfig.parse(dataset, config)
    pool = train_pool_size(cfg)
    a = cell_arrays(cfg, 0, pool)
    tensors = (a.train_input_ids, a.train_labels, a.val_input_ids, a.val_labels)
    return TrainData(*(torch.from_numpy(x) for x in tensors), whole_pool=pool), vocab_of(cfg).size


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
    (whose batch order is ``batches``: see `hf_trainer_baseline`); the refined search starts
    at ``n_start``; ``on_eval(n, lr, seed, step, val_loss, train_loss)`` hears every
    evaluation of our trainer; ``ordered`` trains first the points that succeeded at earlier
    probes, as `JournalProbe` does."""
    from hf_induction.models import build_model
    from hf_induction.search import ProbeOutcome, SearchSettings, run_search
    from hf_induction.training import train_grid
    from hf_induction.training.grid import winners_first
    from hf_induction.training.hf_trainer_baseline import trainer_grid

    data, vocab = _cell_data(dataset, config)

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


def _reference_settings(quick: bool):
    from hf_induction.training import TrainSettings

    # Learning rates the tiny Dense-SSM learns Z_3 with in a few hundred steps (the paper's
    # 1e-3..1e-5 need far more steps than a benchmark can afford on 2 cores).
    return TrainSettings(
        max_steps=300 if quick else 600,
        eval_every=25,
        lrs=(0.1, 0.03, 0.01),
        seeds=(10,) if quick else (10, 20, 30, 40, 50),
    )


@section
def bench_search_speedup_vs_trainer(quick: bool) -> dict:
    import dataclasses

    from hf_induction.training import Patience

    settings = _reference_settings(quick)
    out = {
        "reference_cell": "/".join(REFERENCE_CELL) + " dense_ssm tiny",
        "reference_runs_per_probe": len(settings.grid),
        "reference_max_steps": settings.max_steps,
    }
    ours = search_cell(*REFERENCE_CELL, "dense_ssm", settings)
    early = search_cell(
        *REFERENCE_CELL, "dense_ssm", dataclasses.replace(settings, early_failure=Patience(200))
    )
    # The Trainer draws the protocol's batches (the same rows as ours), so both searches follow
    # the same trajectories and must find the same N*.
    hf = search_cell(*REFERENCE_CELL, "dense_ssm", settings, trainer="hf_trainer")
    searches = [("ours", ours), ("ours_early_failure", early), ("hf_trainer", hf)]
    if not quick:
        # The Trainer's own shuffled epochs: a different procedure below 64 rows.
        searches.append(("hf_trainer_epochs", search_cell(
            *REFERENCE_CELL, "dense_ssm", settings, trainer="hf_trainer", batches="epochs"
        )))
    for tag, r in searches:
        for key in ("n_star", "largest_failing", "wall_s", "steps", "probes"):
            out[f"search_{tag}_{key}"] = r[key]
    out["search_speedup_vs_trainer"] = hf["wall_s"] / ours["wall_s"]
    out["search_speedup_vs_trainer_early_failure"] = hf["wall_s"] / early["wall_s"]
    # The paper's protocol: 15 runs x 250,000 steps for every probe.
    paper_steps = ours["probes"] * 15 * 250_000
    out["search_steps_paper_protocol"] = paper_steps
    out["search_steps_ratio_paper_over_ours"] = paper_steps / ours["steps"]
    return out


EARLY_FAILURE_CELLS = [
    ("modadd", "acot_L4_m3", "dense_ssm"),
    ("modadd", "outcome_L4_m3", "dense_ssm"),
    ("modadd", "acot_L3_m5", "dense_ssm"),
    ("modadd", "acot_L4_m3", "lstm"),
]


@section
def bench_early_failure(quick: bool) -> dict:
    """How often the early-failure rule changes N*: full-grid searches with and without it."""
    import dataclasses

    from hf_induction.training import Patience

    settings = _reference_settings(quick)
    out = {}
    changed = 0
    cells = EARLY_FAILURE_CELLS[:2] if quick else EARLY_FAILURE_CELLS
    for dataset, config, model in cells:
        key = f"{config}_{model}"
        full = search_cell(dataset, config, model, settings)
        early = search_cell(
            dataset, config, model, dataclasses.replace(settings, early_failure=Patience(200))
        )
        out[f"early_failure_{key}_n_star"] = f"{full['n_star']} -> {early['n_star']}"
        out[f"early_failure_{key}_steps_ratio"] = full["steps"] / early["steps"]
        changed += full["n_star"] != early["n_star"]
    out["early_failure_cells"] = len(cells)
    out["early_failure_nstar_changed"] = changed
    return out


# The early-decision set: three formats, both groups, the recurrent models and GPT-2 (cot, whose
# loss sits on plateaus), each at a budget whose whole search this machine affords, and where
# the model learns the cell (so that N* exists on most of them).
_CPU = dict(max_steps=1500, eval_every=50, lrs=(3e-2, 1e-2), seeds=(10, 20))
_LSTM = dict(max_steps=3000, eval_every=50, lrs=(1e-2, 3e-3), seeds=(10, 20))
_GPT2 = dict(max_steps=5000, eval_every=100, lrs=(1e-3,), seeds=(10, 20))
EARLY_DECISION_CELLS = [
    ("modadd", "acot_L4", "dense_ssm", _CPU),
    ("modadd", "outcome_L4_m3", "dense_ssm", _CPU),
    ("modadd", "cot_L3_m3", "dense_ssm", _CPU),
    ("permutation", "acot_L3_S3", "dense_ssm", _CPU),
    ("permutation", "outcome_L3_S3", "dense_ssm", _CPU),
    ("modadd", "acot_L4_m3", "lstm", _LSTM),
    ("permutation", "acot_L3_S3", "lstm", _LSTM),
    ("modadd", "outcome_L3_m3", "lstm", _LSTM),
    ("modadd", "cot_L3", "gpt2", _GPT2),
    # The cell where a 1,000-step patience window moved the LSTM's N* by +19%.
    ("modadd", "acot_L5", "lstm", dict(max_steps=5000, eval_every=100, lrs=(1e-2, 3e-3),
                                       seeds=(10, 20))),
    ("permutation", "cot_L3_S3", "gpt2", _GPT2),
    # Tiny pools, where every batch holds the whole training set and the first forecast rule
    # moved N*: a 3-word Z_2 set the Dense-SSM generalises from only at step 17,500 (the
    # README's kappa), and the 7-word acot_L3_m2 set Mamba learns at step 2,600 of 3,000.
    ("modadd", "acot_L2_m2", "dense_ssm", dict(max_steps=20000, eval_every=100, lrs=(3e-2,),
                                                seeds=(10, 20))),
    ("modadd", "acot_L3_m2", "mamba", dict(max_steps=3000, eval_every=100, lrs=(1e-2, 3e-3),
                                           seeds=(10, 20))),
]


def _grid_is_stacked(model: str, vocab) -> bool:
    """Whether `train_grid` stacks this model's grid on the CPU (else runs one at a time)."""
    from hf_induction.models import build_model
    from hf_induction.training.grid import has_stacked_forward

    built = build_model(model, vocab, "tiny")
    return has_stacked_forward(built) and getattr(built, "stacked_grid_wins_on_cpu", False)


def _curve_recorder(runs: dict):
    """An ``on_eval`` for `search_cell` that appends each evaluation to ``runs``, keyed
    "N/lr/seed" (read back by `_curve_point`)."""
    def record(n, lr, seed, step, val, train):
        runs.setdefault(f"{n}/{lr!r}/{seed}", []).append((step, val, train))
    return record


def _curve_point(key: str) -> tuple[int, tuple[float, int]]:
    """"N/lr/seed" -> (N, (lr, seed))."""
    n, lr, seed = key.split("/")
    return int(n), (float(lr), int(seed))


def _early_cells(quick: bool) -> list:
    cells = EARLY_DECISION_CELLS[:3] if quick else EARLY_DECISION_CELLS
    if OPTIONS["cells"]:
        cells = [c for c in cells if any(part in "/".join(c[:3]) for part in OPTIONS["cells"])]
    return cells


def _record_early_decisions(cells: list) -> dict:
    """Each cell's search without a rule, every run trained to its own end, its curves
    written to OPTIONS["record"] after each cell (what --replay reads)."""
    from hf_induction.training import TrainSettings

    path = Path(OPTIONS["record"])
    recorded = json.loads(path.read_text()) if path.exists() else {}
    out = {}
    for dataset, config, model, budget in cells:
        key = f"{dataset}/{config}/{model}"
        if key in recorded and recorded[key]["budget"] == json.loads(json.dumps(budget)):
            print(f"  {key}: recorded already", flush=True)
            continue
        runs: dict = {}
        record = _curve_recorder(runs)
        settings = TrainSettings(**budget, stop_on_first_success=False)
        r = search_cell(dataset, config, model, settings, mode="refined", n_start=8,
                        on_eval=record)
        data, vocab = _cell_data(dataset, config)
        recorded[key] = {"budget": budget, "stacked": _grid_is_stacked(model, vocab),
                         "pool": data.whole_pool, "runs": runs}
        path.write_text(json.dumps(recorded))
        out[f"early_decisions_{key}_recorded"] = (
            f"N* {r['n_star']} ({r['largest_failing']}, {r['n_star']}] steps {r['steps']} "
            f"wall {r['wall_s']:.0f}s")
        print(f"  {key}: {out[f'early_decisions_{key}_recorded']}", flush=True)
    return out


def _spent_where(log: list, pool: int, epsilon: float, curves: dict, rule) -> dict:
    """Where a replayed search's steps went: the runs that reached ε, the whole pool's
    probe, runs the rule stopped, runs stacked beside a winner until it won, and failing
    runs the rule let train on, split by whether they came within the rule's margin of ε
    (converging slowly) or never memorised by the rule's gap (the plateaus it spares by
    design)."""
    where = dict.fromkeys(("reached_eps", "whole_pool", "stopped_by_rule", "beside_the_winner",
                           "within_10x_eps", "never_memorised", "other_failing"), 0)
    for n, runs in log:
        for point, reason, steps in runs:
            seen = [(v, t) for s, v, t in curves[n][point] if s <= steps]
            if reason == "epsilon":
                part = "reached_eps"
            elif n >= pool:
                part = "whole_pool"
            elif reason == "early_failure":
                part = "stopped_by_rule"
            elif reason == "probe_decided":  # stacked beside the run that reached ε
                part = "beside_the_winner"
            elif seen and min(v for v, _ in seen) < rule.margin * epsilon:
                part = "within_10x_eps"
            elif not any(t <= rule.gap * v for v, t in seen):
                part = "never_memorised"
            else:
                part = "other_failing"
            where[part] += steps
    return where


def _replay_early_decisions(cells: list) -> dict:
    """Each recorded cell replayed without the rule and with it (`training.replay`), and
    under the known-fate bound (`replay.KnownFate`) that no stopping rule can beat."""
    from hf_induction.search import SearchSettings
    from hf_induction.training import Forecast, TrainSettings, parse_early_failure
    from hf_induction.training.replay import KnownFate, Unrecorded, replay_search

    recorded = json.loads(Path(OPTIONS["replay"]).read_text())
    # forecast-v1 decided the whole pool's probe too; "ordered" trains the points that
    # succeeded at earlier probes first, as the nstar command does; the known_fate columns
    # bound any rule, and any rule that waits at the whole pool as forecast does.
    rule = Forecast(**OPTIONS["forecast"])
    rules = {"off": (None, False, None),
             "forecast-v1": (parse_early_failure("forecast-v1"), False, None),
             "forecast": (rule, False, None), "forecast_ordered": (rule, True, None),
             "known_fate": (None, False, KnownFate()),
             "known_fate_waiting_at_whole_pool": (None, False, KnownFate(whole_pool=False))}
    out: dict = {"early_decisions_rule": repr(rule)}
    totals = dict.fromkeys(rules, 0)
    where_total: dict = {}
    moved: dict = {tag: [] for tag in rules}
    for dataset, config, model, _ in cells:
        key = f"{dataset}/{config}/{model}"
        if key not in recorded:
            print(f"  {key}: not recorded", flush=True)
            continue
        cell = recorded[key]
        curves: dict = {}
        for name, curve in cell["runs"].items():
            n, point = _curve_point(name)
            curves.setdefault(n, {})[point] = curve
        found = {}
        for tag, (rule, ordered, fate) in rules.items():
            settings = TrainSettings(**cell["budget"], early_failure=rule)
            search = SearchSettings(mode="refined", n_start=8,
                                    n_max=settings.max_steps * settings.batch_size)
            log: list = []
            try:
                r = replay_search(curves, cell["pool"], search, settings, cell["stacked"],
                                  ordered, fate, log)
                found[tag] = (r.n_star, r.largest_failing, r.total_steps)
            except Unrecorded as e:
                found[tag] = (f"moved (the replay reached {e.args[0]})", None, 0)
            totals[tag] += found[tag][2]
            n_star, failing, steps = found[tag]
            out[f"early_decisions_{key}_{tag}"] = f"N* {n_star} ({failing}, {n_star}] steps {steps}"
            if tag != "off" and found[tag][:2] != found["off"][:2]:
                moved[tag].append(key)
            if tag == "forecast_ordered":
                for part, spent in _spent_where(log, cell["pool"], settings.epsilon,
                                                curves, rule).items():
                    where_total[part] = where_total.get(part, 0) + spent
        for tag in rules:
            if tag != "off" and found[tag][2]:
                out[f"early_decisions_{key}_{tag}_ratio"] = found["off"][2] / found[tag][2]
    out["early_decisions_cells"] = len(cells)
    for tag in rules:
        out[f"early_decisions_steps_{tag}"] = totals[tag]
        if tag != "off":
            out[f"early_decisions_{tag}_nstar_moved"] = ", ".join(moved[tag]) or "none"
            out[f"early_decisions_{tag}_steps_ratio"] = totals["off"] / max(totals[tag], 1)
    # Where the rule's steps go, as fractions of its total (the default rule, ordered runs).
    spent = max(sum(where_total.values()), 1)
    for part, steps in where_total.items():
        out[f"early_decisions_forecast_spent_{part}"] = f"{steps} ({steps / spent:.0%})"
    return out


@section
def bench_early_decisions(quick: bool) -> dict:
    """Every cell's refined search with the default rule (`Forecast`) and without it: same
    budget, same grid; both N*, both step counts, and the totals. --quick runs 3 cells.
    --record trains each search once with every run to its end; --replay decides both
    searches, and the rule with succeeded-first run order, from that recording."""
    from hf_induction.training import Forecast, TrainSettings

    cells = _early_cells(quick)
    if OPTIONS["record"]:
        return _record_early_decisions(cells)
    if OPTIONS["replay"]:
        return _replay_early_decisions(cells)
    curves: dict = {}
    out: dict = {"early_decisions_rule": repr(Forecast())}
    totals = {"off": 0, "forecast": 0}
    moved = []
    for dataset, config, model, budget in cells:
        key = f"{dataset}/{config}/{model}"
        found = {}
        for tag, rule in (("off", None), ("forecast", Forecast())):
            settings = TrainSettings(**budget, early_failure=rule)
            record = None
            if tag == "off" and OPTIONS["curves"]:
                record = _curve_recorder(
                    curves.setdefault(key, {"budget": budget, "runs": {}})["runs"])
            found[tag] = r = search_cell(dataset, config, model, settings, mode="refined",
                                         n_start=8, on_eval=record, ordered=rule is not None)
            if record is not None:
                Path(OPTIONS["curves"]).write_text(json.dumps(curves))
            totals[tag] += r["steps"]
            out[f"early_decisions_{key}_{tag}"] = (
                f"N* {r['n_star']} ({r['largest_failing']}, {r['n_star']}] "
                f"steps {r['steps']} wall {r['wall_s']:.0f}s")
            print(f"  {key} {tag}: {out[f'early_decisions_{key}_{tag}']}", flush=True)
        if (found["off"]["n_star"], found["off"]["largest_failing"]) != (
                found["forecast"]["n_star"], found["forecast"]["largest_failing"]):
            moved.append(key)
        off, on = found["off"]["steps"], found["forecast"]["steps"]
        out[f"early_decisions_{key}_steps_ratio"] = off / on
    out["early_decisions_cells"] = len(cells)
    out["early_decisions_nstar_moved"] = ", ".join(moved) or "none"
    out["early_decisions_steps_off"] = totals["off"]
    out["early_decisions_steps_forecast"] = totals["forecast"]
    out["early_decisions_steps_ratio"] = totals["off"] / totals["forecast"]
    return out


def _one_search(threads: int) -> float:
    import torch

    torch.set_num_threads(threads)
    return search_cell(*REFERENCE_CELL, "dense_ssm", _reference_settings(True))["wall_s"]


@section
def bench_threads(quick: bool) -> dict:
    """Searches per hour on the reference cell: one 2-thread process vs two 1-thread ones."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    rounds = 1 if quick else 2
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


def _scheduling_costs(total_s: float) -> list[float]:
    """A sweep's skew: 4 models whose searches cost 1, 3, 10 and 30 units, 12 cells each whose
    lengths scale the cost by 1 to 2.5, listed as a sweep lists them (a model's cells together,
    cheapest model first), scaled to ``total_s`` seconds of work."""
    units = [m * (1 + 0.5 * (c % 4)) for m in (1, 3, 10, 30) for c in range(12)]
    return [total_s * u / sum(units) for u in units]


def _scheduling_worker(rank: int, world: int, port: int, cases: list, answers) -> None:
    """One process of the fake campaign: each job sleeps its cost; per case, the time from a
    common barrier to this process's last job, and the jobs it ran."""
    import torch.distributed as dist

    from hf_induction.runner.schedule import my_jobs

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


@section
def bench_scheduling(quick: bool) -> dict:
    """Makespan of a skewed fake campaign (sleeps) over its lower bound max(work / P, the
    longest job), static round robin against the dynamic queue, at P = 2, 4 and 8 processes,
    with the jobs in sweep order and costliest first."""
    import socket

    import torch.multiprocessing as mp

    out = {}
    for world in (2, 4, 8):
        costs = _scheduling_costs((2.0 if quick else 6.0) * world)
        orders = {"sweep_order": costs, "costliest_first": sorted(costs, reverse=True)}
        cases = [(order, schedule, c) for order, c in orders.items()
                 for schedule in ("static", "dynamic")]
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        ctx = mp.get_context("spawn")
        answers = ctx.Queue()
        procs = [ctx.Process(target=_scheduling_worker, args=(r, world, port, cases, answers))
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


def _forecast_parameters(text: str) -> dict:
    """``start=0.05,gap=0.05`` -> {"start": 0.05, "gap": 0.05}, checked by `Forecast`."""
    from hf_induction.training import Forecast

    try:
        pairs = dict(item.split("=", 1) for item in text.split(",") if item)
        kwargs = {k.strip(): float(v) for k, v in pairs.items()}
        Forecast(**kwargs)
    except (ValueError, TypeError) as e:
        raise argparse.ArgumentTypeError(
            f"expected KEY=VALUE pairs of margin, gap, start ({e})") from None
    return kwargs


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller sizes, under 5 minutes")
    p.add_argument("--only", nargs="+", choices=sorted(SECTIONS), default=sorted(SECTIONS))
    p.add_argument("--json", metavar="FILE")
    p.add_argument("--cells", nargs="+", metavar="PART",
                   help="early_decisions: only the cells whose dataset/config/model holds one "
                   "of these, e.g. gpt2 or permutation/acot")
    p.add_argument("--curves", metavar="FILE",
                   help="early_decisions: write every run's (step, validation loss, training "
                   "loss) of the searches without the rule to FILE (JSON), after each cell")
    p.add_argument("--record", metavar="FILE",
                   help="early_decisions: train each cell's search once, no rule, every run "
                   "to its own end, and add its curves to FILE (cells already there are kept)")
    p.add_argument("--replay", metavar="FILE",
                   help="early_decisions: decide the searches with and without the rule from "
                   "the curves --record wrote, without training")
    p.add_argument("--forecast", metavar="KEY=VALUE,...", type=_forecast_parameters,
                   default={}, help="early_decisions --replay: the forecast rule's parameters "
                   "to replay, e.g. start=0.05,gap=0.05 (default: the rule's own)")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (default 1: the steadiest on a shared 2-core machine)",
    )
    args = p.parse_args(argv)
    OPTIONS.update(cells=args.cells, curves=args.curves, record=args.record,
                   replay=args.replay, forecast=args.forecast)
    import torch

    torch.set_num_threads(args.threads)
    results = {
        "machine": platform.processor() or platform.machine(),
        "quick": args.quick,
        "threads": args.threads,
    }
    for name in args.only:
        print(f"[{name}]", flush=True)
        start = time.perf_counter()
        figures = SECTIONS[name](args.quick)
        figures[f"{name}_section_s"] = time.perf_counter() - start
        for key, value in figures.items():
            print(
                f"  {key:48s} {value:,.4g}" if isinstance(value, float) else f"  {key:48s} {value}"
            )
        results.update(figures)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
