"""Every training and search setting, declared once: the one place to add a setting.

A new setting is one `Setting` here plus its use: the field of the same name in
`TrainSettings` or `SearchSettings` and the code that reads it. Its flag, recipe and sweep
key, preset values and protocol record follow from the declaration; a setting added after
results were published declares ``plain=`` (the value they trained with) so that their
protocol hashes hold."""

from __future__ import annotations

import os
from typing import Any

from ..search.settings import MODES
from ..tasks.limits import MAX_INT64, MAX_ROWS
from ..tasks.sampling import DISJOINT, VALIDATION_RULES
from .legacy import early_failure_record
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
    positive_finite,
    positive_floats,
    positive_or_off,
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
            default_help="the preset's: {presets}; off under --search paper"),
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
    Setting("dtype", "train",
            "the parameters' dtype while training (recorded in the protocol: it changes "
            "results)", default="float32", choices=("float32", "bfloat16")),
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
    Setting("n_max", "search", "largest N probed", rows, group="search",
            derive=lambda v: v["max_steps"] * v["batch_size"],
            default_help="max_steps x batch size"),
    Setting("max_search_steps", "search", "most probes per search",
            int_in(1, MAX_ROWS, "a search never probes one N twice, and N is a row count a "
                   "split can hold"), default=20, group="search"),
    # The search's own constants, which no flag sets; None: the mode's midpoint.
    Setting("midpoint", "search", "the bisection's midpoint", flag=None),
    Setting("factor", "search", "Algorithm 1's divisor", default=1000, flag=None),
    Setting("growth", "search", "the refined search's bracketing factor", default=4,
            flag=None),
)

SETTINGS: tuple[Setting, ...] = TRAINING + SEARCH
# The help groups of the flags; the first two are also a sweep's 'budget:' keys.
GROUPS = {"budget": "budget (defaults from --preset)", "search": "search", "run": "run"}
SWEEP_GROUPS = ("budget", "search")
