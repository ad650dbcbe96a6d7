"""Every training, search and launch setting, declared once: the one place to add a setting.

A new setting is one `Setting` here plus its use: the field of the same name in
`TrainSettings`, `SearchSettings` or `LaunchOptions` (a test holds the fields and the
declarations equal) and the code that reads it. Its flag, recipe and sweep
key, preset values and protocol record follow from the declaration; a setting added after
results were published declares ``plain=`` (the value they trained with) so that their
protocol hashes hold."""

from __future__ import annotations

import os
from typing import Any

from ..runner.schedule import SCHEDULES
from ..runner.tracking import REPORT_TO
from ..tasks.limits import MAX_INT64, MAX_ROWS
from ..tasks.sampling import DISJOINT, VALIDATION_RULES
from .legacy import early_failure_record
from .search_modes import MODES, PAPER_N_MAX
from .setting import Setting
from .values import (
    INT64,
    OFF,
    ascii_word,
    distinct,
    fraction,
    int_in,
    ints_in,
    nonnegative_float,
    output_folder,
    positive_finite,
    positive_floats,
    positive_or_off,
    repo_id,
    rows,
    switch,
)

# Bounds from what can be held: a row count a split can hold (`rows`), an int64 column of the
# results tables, a search that never probes one N twice.
steps = int_in(1, MAX_INT64, INT64)


def _early_failure(text: str):
    from ..training.early import parse_early_failure

    try:
        return parse_early_failure(text)
    except ValueError as e:
        raise ValueError(f"--early-failure {text}: {e}") from None


def _off_is_none(value: Any) -> Any:
    return None if value == OFF else value


def _device(value: str | None) -> str:
    if value is not None:
        return value
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


TRAINING: tuple[Setting, ...] = (
    Setting("max_steps", "train", "training steps per run", steps,
            presets={"paper": 250_000, "cpu": 1500, "finetune": 3000}),
    Setting("eval_every", "train", "validation cadence in steps", steps,
            presets={"paper": 1000, "cpu": 50, "finetune": 250}),
    Setting("batch_size", "train", "examples per step", rows, default=64),
    Setting("epsilon", "train", "a run succeeds below this validation loss", positive_finite,
            default=1e-4),
    Setting("lrs", "train", "comma-separated learning rates", distinct(positive_floats),
            presets={"paper": (1e-3, 1e-4, 1e-5), "cpu": (3e-2, 1e-2), "finetune": (1e-5,)}),
    Setting("seeds", "train", "comma-separated seeds", distinct(ints_in(0, MAX_INT64, INT64)),
            presets={"paper": (10, 20, 30, 40, 50), "cpu": (10, 20), "finetune": (10, 20, 30)}),
    Setting("early_failure", "train",
            "stop failing runs early: 'forecast' stops a run that has memorised its rows and "
            "whose validation loss cannot reach epsilon by the end of the budget at its pace, "
            "except at the probe of the whole training pool (changed no N* on the benchmark "
            "cells); 'forecast-v1' decides that probe too, as its first version did (it "
            "resumes folders made with it); STEPS stops a run whose best validation loss has "
            "not halved in STEPS steps; 'off' trains every run to its budget, as the paper does",
            ascii_word, default="off",
            # The forecast rule changed no N* on the 13 benchmark cells and cut their steps
            # 2.15x (docs/benchmarks.md, early decisions).
            presets={"cpu": "forecast"},
            # Algorithm 1 as the paper ran it: every run to its budget.
            derive=lambda v: "off" if v["mode"] == "paper" else None,
            build=_early_failure, record=early_failure_record,
            metavar="off|forecast|forecast-v1|STEPS",
            default_help="the budget's: {presets}; off under --search paper"),
    Setting("weight_decay", "train",
            "AdamW's decoupled weight decay on every matrix (0: Adam)", nonnegative_float,
            default=0.0, presets={"finetune": 0.01}, plain=0.0),
    Setting("warmup", "train",
            "the fraction of the steps over which the learning rate rises from 0", fraction,
            default=0.0, presets={"finetune": 0.15}, plain=0.0, metavar="FRACTION"),
    Setting("lr_schedule", "train",
            "after the warmup: constant, or linear down to 0 at the last step",
            default="constant", presets={"finetune": "linear"}, plain="constant",
            choices=("constant", "linear")),
    Setting("max_grad_norm", "train", "clip each run's gradient to this norm", positive_or_off,
            default=None, presets={"finetune": 1.0}, build=_off_is_none, plain=None,
            metavar="NORM|off"),
    Setting("position_offsets", "train",
            "start each training row's positions at a random offset, so that positions up to "
            "the cell's longest split are trained, in models with learned absolute positions "
            "(GPT-2's family); others are unaffected", switch,
            default=False, presets={"finetune": True}, plain=False, metavar="on|off"),
    # In Python, None trains the model in the dtype its factory builds it in (the tests'
    # float64 models compare exactly so).
    Setting("dtype", "train",
            "the parameters' dtype while training (recorded in the protocol: it changes "
            "results)", default="float32", choices=("float32", "bfloat16"), api_default=None),
    Setting("mixed_precision", "train",
            "bf16: every forward under bfloat16 autocast (recorded in the protocol); fp16 is "
            "refused (no loss scaling)", default="no", choices=("no", "bf16", "fp16"),
            derive=lambda v: os.environ.get("ACCELERATE_MIXED_PRECISION", "no").lower(),
            default_help="ACCELERATE_MIXED_PRECISION, which `accelerate launch "
            "--mixed_precision` sets, else no"),
    # Folders made before the rule could be chosen validated disjointly.
    Setting("validation", "train",
            "disjoint: each length's validation words are set aside and no training set holds "
            "one; in-distribution: 2,000 rows drawn from the training law on a stream of their "
            "own (a small pool whole), the whole pool left to training, so a size that covers "
            "the pool holds every validation word (the papers' matching distributions)",
            default=DISJOINT, plain=DISJOINT, choices=VALIDATION_RULES),
    Setting("stop_on_first_success", "train",
            "train every run of a probe even after one has succeeded", default=True,
            flag="--full-grid", group=None, switch_to=False,
            default_help="off: a probe stops once a run succeeds"),
    # Where and how fast the grid is computed, not what it computes: not in the protocol.
    Setting("device", "train", "cpu or cuda[:i]", build=_device, recorded=False, group="run",
            default_help="cuda if present, else cpu"),
    Setting("grid_mode", "train", "auto stacks the grid into one model where that is faster",
            default="auto", recorded=False, group="run",
            choices=("auto", "stacked", "sequential")),
    # A pretrained model's logits over its whole vocabulary are large.
    Setting("eval_batch_size", "train",
            "validation rows per forward (per run when the grid is stacked): fewer take less "
            "memory; the protocol leaves it out", rows, default=256, presets={"finetune": 16},
            recorded=False, group="run"),
)

SEARCH: tuple[Setting, ...] = (
    Setting("mode", "search",
            "refined: bracket up by x4 from --n-start, then bisect in log space; paper: "
            "Algorithm 1 (divide by 1000 while N succeeds, then bisect)",
            default="refined", choices=MODES, flag="--search", group=None),
    Setting("rtol", "search", "refined search: stop bisecting once hi/lo <= 1 + rtol",
            positive_finite, default=0.1, group="search"),
    Setting("n_start", "search", "refined search: the first N probed", rows, default=16,
            presets={"cpu": 8}, group="search"),
    Setting("n_max", "search", "largest N probed", rows, default=PAPER_N_MAX, group="search",
            bound=steps,
            derive=lambda v: v["max_steps"] * v["batch_size"],
            default_help="max_steps x batch size"),
    Setting("max_search_steps", "search", "most probes per search",
            int_in(1, MAX_ROWS, "a search never probes one N twice, and N is a row count a "
                   "split can hold"), default=20, group="search"),
    # The search's own constants, which no flag sets; None: the mode's midpoint.
    Setting("midpoint", "search", "the bisection's midpoint", flag=None),
    Setting("factor", "search", "Algorithm 1's divisor", int_in(2, MAX_INT64, INT64),
            default=1000, flag=None),
    Setting("growth", "search", "the refined search's bracketing factor",
            int_in(2, MAX_INT64, INT64), default=4, flag=None),
)

# How one launch runs, not what it computes: never in the protocol (`LaunchOptions`; a test
# changes each one and holds the protocol's hash).
LAUNCH: tuple[Setting, ...] = (
    Setting("force", "launch", "use an output folder recorded under another protocol",
            default=False, switch_to=True, recorded=False, group=None, default_help="off"),
    Setting("reach", "launch",
            "with --ood (or a sweep's ood: true): also score each OOD check's best run at 2L, "
            "4L, 10L, 100L and 1,000L (500 rows a length; a model with learned positions only "
            "as far as they go)", default=False, switch_to=True, recorded=False, group=None,
            default_help="off"),
    Setting("keep_checkpoints", "launch",
            "with --lengthgen: keep each check's best run (model, tokenizer and what it was "
            "trained on) in OUT/checkpoints/MODEL-CONFIG-nN/, for `hf-induction heads`; a rerun "
            "keeps those of recorded checks too (it changes no result, and no protocol)",
            default=False, switch_to=True, recorded=False, group=None, default_help="off"),
    Setting("threads", "launch",
            "torch threads per process on the CPU",
            int_in(1, os.cpu_count() or 1, "this machine's cores"), recorded=False, group="run",
            default_help="1: on 2 cores, two 1-thread processes ran 2.9x the searches per hour "
            "of one 2-thread process"),
    Setting("schedule", "launch",
            "with several processes: dynamic gives the next job to the first one free (a "
            "counter in the launcher's rendezvous store); static gives each every P-th job",
            default="dynamic", choices=SCHEDULES, recorded=False, group="run"),
    Setting("warm_start", "launch",
            "start each refined search from the N* of its nearest finished neighbour in OUT "
            "(the same model at a shorter length or smaller m, the other models on the cell, "
            "the same model at a longer length or on another group; one whose largest size "
            "failed sends it to its cap first), at a point of the cold search's own climb, so "
            "that under outcomes monotone in N it finds the same N* from fewer probes (1.53x "
            "fewer replayed on the published searches); it changes no run, and no protocol",
            switch, default=True, negatable=True, recorded=False, group="run"),
    Setting("progress", "launch", "no progress bars", default=True, flag="--no-progress",
            switch_to=False, recorded=False, group="run", default_help="bars shown"),
    Setting("report_to", "launch",
            f"experiment trackers, through Accelerate: {', '.join(REPORT_TO)}; each search is "
            "one tracker run, every training run one validation curve",
            default=("none",), choices=REPORT_TO, nargs="+", metavar="TRACKER", build=tuple,
            recorded=False, group="run", default_help="none"),
    Setting("logging_dir", "launch", "where TensorBoard and wandb write", output_folder,
            recorded=False, group="run", default_help="OUT/runs; trackio uses its own store"),
    Setting("push_to_hub", "launch", "upload the results folder to this Hub dataset repo when "
            "done", repo_id, metavar="ORG/REPO", recorded=False, group="run",
            default_help="no upload"),
    Setting("push_checkpoints", "launch",
            "with --push-to-hub: push the winning run at N* (nstar, given alone) or of every "
            "succeeding probe (probes) as model repos ORG/REPO-MODEL-CONFIG-nN",
            nargs="?", const="nstar", choices=("nstar", "probes"), recorded=False,
            group="run", default_help="none"),
)

SETTINGS: tuple[Setting, ...] = TRAINING + SEARCH + LAUNCH
# The help groups of the flags; the first two are also a sweep's 'budget:' keys.
GROUPS = {"budget": "budget (defaults from --budget)", "search": "search", "run": "run"}
SWEEP_GROUPS = ("budget", "search")
