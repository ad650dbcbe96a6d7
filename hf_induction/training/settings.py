"""What a training run depends on, and what it reports."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Literal

import torch

from hf_induction.settings import TRAINING, check_fields, defaults
from hf_induction.training.early import EarlyFailure

StopReason = Literal["epsilon", "budget", "nonfinite", "early_failure", "probe_decided"]
GridMode = Literal["auto", "stacked", "sequential"]
# Called at every evaluation of a run with (lr, seed, step, validation loss, training loss),
# the training loss being the mean batch loss since the previous evaluation: trackers listen.
EvalCallback = Callable[[float, int, int, float, float], None]
# The torch dtype of each dtype the declaration allows (`settings.declared`).
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
# Each field's default is its declaration's value under the paper's protocol (one home for
# every default: `settings.declared`); a test holds the fields and the declarations equal.
DEFAULTS = defaults(TRAINING)


@dataclass(frozen=True)
class TrainSettings:
    """Settings shared by every run of a probe. Each field is a setting declared in
    `settings.declared`, whose default (the paper's protocol), bounds and choices are read
    from there.

    Args:
        max_steps: step budget per run (the paper's, the default: 250,000).
        batch_size: examples per step, drawn with replacement from the first N rows (paper: 64).
        eval_every: validation cadence in steps; the last step is always evaluated too.
        epsilon: a run succeeds once its validation loss is strictly below this.
        lrs: learning rates of the grid Φ.
        seeds: seeds of the grid Φ; a seed fixes both the initialisation and the batches.
        stop_on_first_success: once one run succeeds the probe's outcome is decided and the
            other runs stop (``probe_decided``); False keeps them all (``--full-grid``).
        early_failure: the rule that stops a run as failed before its budget is spent
            (``early_failure``), a `Forecast` or a `Patience` (training/early.py); None (the
            default, and the paper) trains every run to its budget or to ε.
        device: where runs train, e.g. ``"cpu"``, ``"cuda"``, ``"cuda:1"`` (the default: cuda
            where there is one, else cpu).
        grid_mode: ``"stacked"`` trains the grid as one model: through the model's
            hand-batched ``stacked_forward`` if it has one (Dense-SSM, LSTM), else under
            ``torch.func.vmap``. ``"sequential"`` runs ``train_run`` once per grid point.
            ``"auto"`` (the default) stacks where that wins: on an accelerator always; on the
            CPU only models with ``stacked_forward`` that set ``stacked_grid_wins_on_cpu``
            (the Dense-SSM below d 128; a stacked LSTM or a vmapped GPT-2 is no faster there
            than its runs one by one: docs/benchmarks.md).
        eval_batch_size: validation rows per forward pass (per run when stacked).
        dtype: the parameters' dtype, one of `DTYPES`; None (the default) trains the model in
            the dtype its factory builds it in (the command line's default is float32).
        mixed_precision: "bf16" runs every forward (training and validation) under bfloat16
            autocast, as ``accelerate launch --mixed_precision bf16`` does; "no" (default) does
            not. fp16 is refused: it needs loss scaling, which this trainer does not do. The
            Dense-SSM and LSTM keep their recurrence in full precision under autocast.
        weight_decay: AdamW's decoupled weight decay on every matrix (0, the default: Adam).
        warmup: the fraction of ``max_steps`` over which the learning rate rises linearly
            from 0 (0, the default: none).
        lr_schedule: after the warmup, ``"constant"`` (the default) or ``"linear"`` (down to 0
            at ``max_steps``, transformers' default schedule): `optim.lr_factor`.
        max_grad_norm: clip each run's gradient to this 2-norm (None, the default: no
            clipping).
        position_offsets: start each training row's positions at a random offset, so that
            every position up to the longest row a check evaluates is trained (the second
            study's absolute-position setup), in models that declare absolute positions
            (`models.positions`); evaluation starts at 0. Other models are unaffected.
        validation: how each probe's validation set relates to its training rows
            (`tasks.VALIDATION_RULES`): ``"disjoint"`` (the default) sets it apart from
            every training set; ``"in-distribution"`` draws it from the training law and
            leaves the whole pool to training.
    """

    max_steps: int = DEFAULTS["max_steps"]
    batch_size: int = DEFAULTS["batch_size"]
    eval_every: int = DEFAULTS["eval_every"]
    epsilon: float = DEFAULTS["epsilon"]
    lrs: tuple[float, ...] = DEFAULTS["lrs"]
    seeds: tuple[int, ...] = DEFAULTS["seeds"]
    stop_on_first_success: bool = DEFAULTS["stop_on_first_success"]
    early_failure: EarlyFailure | None = DEFAULTS["early_failure"]
    device: str = DEFAULTS["device"]
    grid_mode: GridMode = DEFAULTS["grid_mode"]
    eval_batch_size: int = DEFAULTS["eval_batch_size"]
    dtype: str | None = DEFAULTS["dtype"]
    mixed_precision: str = DEFAULTS["mixed_precision"]
    weight_decay: float = DEFAULTS["weight_decay"]
    warmup: float = DEFAULTS["warmup"]
    lr_schedule: str = DEFAULTS["lr_schedule"]
    max_grad_norm: float | None = DEFAULTS["max_grad_norm"]
    position_offsets: bool = DEFAULTS["position_offsets"]
    validation: str = DEFAULTS["validation"]

    def __post_init__(self) -> None:
        # Every bound and choice is the declaration's (`settings.declared`); what is left here
        # is what no flag spells: the rule's type, and the precision this trainer refuses.
        check_fields(TRAINING, self)
        if self.early_failure is not None and not isinstance(self.early_failure, EarlyFailure):
            raise ValueError(
                f"early_failure must be None, a Forecast or a Patience, got {self.early_failure!r}")
        if self.mixed_precision == "fp16":
            raise ValueError(
                "mixed precision fp16 needs loss scaling, which the N* trainer does not do; "
                "use bf16 (or --dtype bfloat16)"
            )

    @property
    def torch_dtype(self) -> torch.dtype | None:
        return None if self.dtype is None else DTYPES[self.dtype]

    def autocast(self, device: torch.device):
        """The context every forward runs in: bfloat16 autocast, or nothing."""
        if self.mixed_precision == "bf16":
            return torch.autocast(device.type, dtype=torch.bfloat16)
        return nullcontext()

    @property
    def grid(self) -> list[tuple[float, int]]:
        """The (lr, seed) points of Φ, learning rate major, in the order they are reported."""
        return [(lr, seed) for lr in self.lrs for seed in self.seeds]


@dataclass(frozen=True)
class RunResult:
    """The outcome of one (lr, seed) run.

    ``best_val_loss`` and ``final_val_loss`` are ``inf`` when the run ended before its first
    evaluation. ``steps`` counts optimizer steps taken, plus the step whose loss turned
    non-finite. ``wall_s`` is the time the run cost: its own when runs train one at a time,
    its share of the grid's time in stacked mode (the runs share the device; `TimeShares`),
    so a probe's cost is the sum of its runs' ``wall_s`` either way.
    """

    lr: float
    seed: int
    success: bool
    best_val_loss: float
    final_val_loss: float
    steps: int
    wall_s: float
    stop_reason: StopReason
