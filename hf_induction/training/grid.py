"""The grid Φ of (learning rate, seed) runs, trained as one stacked model or run by run."""

from __future__ import annotations

import copy
import logging
import re
import time
import warnings
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap
from torch.nn.attention import SDPBackend, sdpa_kernel

from hf_induction.training.adam import StackedAdam
from hf_induction.training.loss import causal_lm_loss_per_run, causal_lm_loss_sum_per_run
from hf_induction.training.optim import decays, lr_factor, stacked_clip
from hf_induction.training.positions import position_offsets
from hf_induction.training.settings import EvalCallback, RunResult, StopReason, TrainSettings
from hf_induction.training.steps import (
    ModelFactory,
    TrainBatches,
    check_size,
    is_eval_step,
    logits_of,
    seeded_model,
    seeded_rng,
    validation_chunks,
)
from hf_induction.training.tensors import TrainData, supervised_lengths
from hf_induction.training.tracker import RunTracker
from hf_induction.training.trainer import train_model
from hf_induction.training.weights import WeightsCallback, stacked_weights, weights_of

# A grid point: (learning rate, seed).
Point = tuple[float, int]

logger = logging.getLogger(__name__)

RunCallback = Callable[[RunResult], None]


class VmapForward(nn.Module):
    """The forward the stacked trainer vmaps: logits of ``model.vmap_forward`` or ``model``.

    A model whose ``forward`` uses an op without a vmap rule (``nn.LSTM``) can declare
    ``vmap_forward(input_ids=...)``: the same function of the same parameters written in
    vmap-friendly ops. The stacked trainer then calls it; single runs keep ``forward``.
    """

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor,
                position_ids: torch.Tensor | None = None) -> torch.Tensor:
        vmap_forward = getattr(self.model, "vmap_forward", None)
        if vmap_forward is not None:
            return logits_of(vmap_forward(input_ids=input_ids))
        positions = {} if position_ids is None else {"position_ids": position_ids}
        return logits_of(self.model(input_ids=input_ids, **positions))


_LOGGED_VERDICTS: set[tuple[str, str, bool, str | None]] = set()


def vmap_unsupported_reason(model: nn.Module, input_ids: torch.Tensor,
                            position_ids: torch.Tensor | None = None) -> str | None:
    """Why ``model`` cannot train stacked under ``torch.func.vmap``, or None if it can.

    A stacked forward and backward of two copies on ``input_ids`` ``[B, T]`` (and
    ``position_ids``, where the runs pass them: transformers' GPT-2 then looks for packed
    sequences in a data-dependent branch vmap refuses), whose outputs must match the plain
    forward. The check costs one tiny step, so it runs for every grid; its verdict is logged
    once per model class and configuration.
    """
    template = VmapForward(model)
    params, buffers = stack_module_state([template, VmapForward(copy.deepcopy(model))])
    was_training = model.training
    template.eval()
    reason = None
    positions = [] if position_ids is None else [position_ids]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            stacked = vmap(_stacked_call(template))(
                params, buffers, input_ids.expand(2, -1, -1),
                *(p.expand(2, -1, -1) for p in positions))
            stacked.sum().backward()
            with torch.no_grad():
                single = template(input_ids, *positions)
            if not torch.allclose(
                stacked[0].detach(), single, rtol=1e-4, atol=1e-5, equal_nan=True
            ):
                error = (stacked[0].detach() - single).abs().max().item()
                reason = f"vmapped logits differ from the plain forward by up to {error:.3g}"
        except Exception as exc:  # any failure means: do not stack this model
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    template.train(was_training)
    key = (type(model).__qualname__, repr(getattr(model, "config", None)), bool(positions),
           reason)
    if key not in _LOGGED_VERDICTS:
        _LOGGED_VERDICTS.add(key)
        _log_verdict(type(model).__name__, reason, [str(w.message) for w in caught])
    return reason


def _log_verdict(name: str, reason: str | None, warning_messages: list[str]) -> None:
    if reason is not None:
        logger.warning(
            "%s does not train under torch.func.vmap (%s); its grids train run by run",
            name,
            reason,
        )
        return
    messages = [m for m in warning_messages if "batching rule" in m]
    slow = sorted({op for message in messages for op in re.findall(r"aten::\w+", message)})
    if slow:
        logger.warning(
            "%s trains stacked, but some ops lack a vmap batching rule and loop over runs: %s",
            name,
            "; ".join(slow),
        )
    else:
        logger.info("%s trains stacked under torch.func.vmap", name)


def _stacked_call(template: nn.Module):
    def call(params, buffers, input_ids, *position_ids):
        if input_ids.device.type != "cuda":
            return functional_call(template, (params, buffers), (input_ids, *position_ids))
        # CUDA's fused attention kernels do not run under vmap (the memory-efficient one
        # fails its stride check, "LSE is not correctly aligned"), which sent every
        # transformer's grid run by run on a GPU; the math backend is plain ops vmap batches.
        with sdpa_kernel(SDPBackend.MATH):
            return functional_call(template, (params, buffers), (input_ids, *position_ids))

    return call


def train_grid(
    model_factory: ModelFactory,
    data: TrainData,
    n: int,
    settings: TrainSettings,
    on_run_done: RunCallback | None = None,
    skip: Collection[tuple[float, int]] = (),
    on_eval: EvalCallback | None = None,
    first: Sequence[Point] = (),
    on_weights: WeightsCallback | None = None,
) -> list[RunResult]:
    """Train every (lr, seed) run of ``settings.grid`` on the first ``n`` training rows.

    ``grid_mode="stacked"`` trains all runs as one model with ``StackedAdam``: through the
    model's hand-batched ``stacked_forward`` if it has one, else under vmap; a model that
    does not run under vmap falls back to run-by-run training (logged once). ``"auto"`` stacks
    only where that wins (see ``TrainSettings.grid_mode``); a single run is never stacked.
    ``grid_mode="sequential"`` calls ``train_model`` per run. Both give the same losses for every
    run when ``stop_on_first_success`` is False. When it is True, the first success decides
    the probe: stacked runs still active stop at that evaluation, and sequential runs not yet
    started are reported with zero steps; either way with ``stop_reason="probe_decided"``.
    Dropout draws different masks in the two modes (vmap draws per run from one stream), so
    with dropout the modes agree in distribution only.

    Args:
        model_factory: builds one fresh model; called under ``torch.manual_seed(seed)``.
        data: the cell's tensors; the training set is its first ``n`` rows.
        n: training-set size.
        settings: budget, grid, stopping rules, device, mode.
        on_run_done: called with each run's result as soon as that run ends.
        skip: (lr, seed) points not to train (already recorded); they are not returned.
        on_eval: called with (lr, seed, step, validation loss) at every evaluation of a run.
        first: grid points to train before the others when runs train one at a time (those
            likeliest to succeed: a success there spares the rest). The order never changes
            whether the probe succeeds, which needs only one success among all runs.
        on_weights: called with each trained run's result and its final weights (`weights`)
            as it ends, so that a check can score the run without training it again.

    Returns:
        One result per trained grid point, in training order.
    """
    check_size(data, n)
    skip = set(skip)
    points = [point for point in first if point in settings.grid and point not in skip]
    points += [point for point in settings.grid if point not in skip and point not in points]
    if not points:
        return []
    runs = _GridRuns(model_factory, data, n, settings, points, on_run_done, on_eval,
                     on_weights)
    if settings.grid_mode != "sequential" and len(points) > 1:
        device = torch.device(settings.device)
        probe_model = seeded_model(model_factory, points[0][1], device, settings.torch_dtype)
        forced = settings.grid_mode == "stacked"
        # On the CPU a stacked step costs about what the runs cost one by one unless the
        # model's hand-batched forward beats its own single-run kernel (Dense-SSM: yes;
        # LSTM against fused nn.LSTM, and GPT-2 under vmap: no; docs/benchmarks.md), so
        # "auto" stacks other models only on an accelerator, where single runs leave it idle.
        wins_here = device.type != "cpu" or getattr(probe_model, "stacked_grid_wins_on_cpu", False)
        if has_stacked_forward(probe_model) and (forced or wins_here):
            return _StackedGrid(runs).train()
        if forced or device.type != "cpu":
            length = int(supervised_lengths(data.train_labels[:2]).max())
            sample = data.train_input_ids[:2, :length].to(device, torch.long)  # [2, T]
            offsets = position_offsets(probe_model, data, settings, points[0][1])
            positions = None if offsets is None else offsets.draw(2, length).to(device)
            if vmap_unsupported_reason(probe_model, sample, positions) is None:
                return _StackedGrid(runs).train()
    return _train_sequential(runs)


def winners_first(won: Sequence[Point], before: Sequence[Point]) -> list[Point]:
    """The `train_grid` ``first`` order after a probe: the points that just reached ε, then
    those that did at earlier probes. The run that succeeded at the nearest size is the
    likeliest to succeed again."""
    return list(won) + [p for p in before if p not in won]


class TimeShares:
    """Each stacked run's share of the grid's wall time: the time between two evaluations
    is split evenly among the runs trained in it. The shares add up to the grid's time, so
    a probe costs the sum of its runs' ``wall_s`` whether they were stacked or not."""

    def __init__(self, runs: int, start: float):
        self.shares = [0.0] * runs
        self.last = start

    def charge(self, active: Sequence[int], now: float) -> None:
        """Split the time since the last charge among the ``active`` runs."""
        if active:
            each = (now - self.last) / len(active)
            for run in active:
                self.shares[run] += each
        self.last = now


def has_stacked_forward(model: nn.Module) -> bool:
    """Whether ``model`` declares a hand-batched ``stacked_forward(params, input_ids)``.

    Such a model computes R runs' logits ``[R, B, T, V]`` from its parameters stacked along a
    leading run dimension (names as in ``named_parameters()``) and inputs ``[R, B, T]``, with
    batched matrix products instead of ``torch.func.vmap``: no vmap or ``functional_call``
    overhead per step, and no vmap rule needed (``nn.LSTM`` has none). Models with buffers
    are not supported by this path.
    """
    return callable(getattr(model, "stacked_forward", None)) and not any(
        True for _ in model.buffers()
    )


@dataclass(frozen=True)
class _GridRuns:
    """The runs of one grid at size ``n`` and who hears of them: what either way of training
    them (one by one, or stacked) is handed."""

    model_factory: ModelFactory
    data: TrainData
    n: int
    settings: TrainSettings
    points: list[tuple[float, int]]
    on_run_done: RunCallback | None
    on_eval: EvalCallback | None
    on_weights: WeightsCallback | None = None


def _train_sequential(runs: _GridRuns) -> list[RunResult]:
    settings = runs.settings
    results = []
    decided = False
    for lr, seed in runs.points:
        if decided:
            result = RunTracker(settings).result(lr, seed, 0, 0.0, "probe_decided")
        else:
            result, model = train_model(runs.model_factory, runs.data, runs.n, lr, seed,
                                        settings, runs.on_eval)
            if runs.on_weights is not None:
                runs.on_weights(result, weights_of(model))
            del model
            decided = settings.stop_on_first_success and result.success
        results.append(result)
        if runs.on_run_done is not None:
            runs.on_run_done(result)
    return results


class _StackedGrid:
    """The active runs of a grid as one model with a leading run dimension on every parameter.

    Each step every active run draws its own batch from its own generator (so run r sees
    exactly the batches ``train_run`` would), one vmapped forward and backward serves all
    runs, and ``StackedAdam`` updates them with their own learning rates. At every
    evaluation, finished runs are reported and dropped from the stack.
    """

    def __init__(self, runs: _GridRuns) -> None:
        model_factory, data, n, settings, points = (
            runs.model_factory, runs.data, runs.n, runs.settings, runs.points)
        on_run_done, on_eval = runs.on_run_done, runs.on_eval
        self.settings = settings
        self.points = points
        self.on_run_done = on_run_done
        self.on_weights = runs.on_weights
        self.device = torch.device(settings.device)
        self.batches = TrainBatches(data, n, self.device)
        self.val_chunks = validation_chunks(data, settings, self.device)
        models = [seeded_model(model_factory, seed, self.device, settings.torch_dtype)
                  for _, seed in points]
        if has_stacked_forward(models[0]):
            self.template = models[0]
            self.params, self.buffers = stack_module_state(models)
            self.train_forward = self._hand_batched
            self.eval_forward = self._hand_batched
            self.prefix = ""
        else:
            wrappers = [VmapForward(model) for model in models]
            self.template = wrappers[0]
            self.params, self.buffers = stack_module_state(wrappers)
            call = _stacked_call(self.template)
            self.train_forward = vmap(call, randomness="different")
            self.eval_forward = vmap(call, in_dims=(0, 0, None), randomness="different")
            self.prefix = "model."  # the names `VmapForward` gives the model's weights
        # Each run draws its own offsets, as it would alone (None: positions start at 0).
        self.offsets = [position_offsets(models[0], data, settings, seed) for _, seed in points]
        decay = [name for name, p in self.params.items() if decays(p, stacked=True)]
        del models
        self.optimizer = StackedAdam(self.params, [lr for lr, _ in points],
                                     weight_decay=settings.weight_decay, decay=decay)
        self.generators = [torch.Generator().manual_seed(seed) for _, seed in points]
        self.trackers = [RunTracker(settings, lr, seed, on_eval, n, data.whole_pool)
                         for lr, seed in points]
        self.active = list(range(len(points)))  # grid positions of the stacked runs
        # Per stacked run, the first step whose loss was non-finite (0: none yet). Kept on
        # the device and read at evaluations only, so steps need no host synchronisation.
        self.bad_step = torch.zeros(len(points), dtype=torch.long, device=self.device)
        # Per stacked run, the sum of its batch losses since the last evaluation (on the
        # device for the same reason), and how many steps that sum holds.
        self.train_sum = torch.zeros(len(points), dtype=torch.float64, device=self.device)
        self.train_count = 0
        self.results: dict[int, RunResult] = {}
        self.clock = TimeShares(len(points), time.perf_counter())

    def _hand_batched(self, params, buffers, input_ids: torch.Tensor) -> torch.Tensor:
        """``stacked_forward``; a validation batch ``[B, T]`` is shared by every run."""
        if input_ids.dim() == 2:
            runs = next(iter(params.values())).shape[0]
            input_ids = input_ids.expand(runs, -1, -1)
        return self.template.stacked_forward(params, input_ids)

    def train(self) -> list[RunResult]:
        settings = self.settings
        self.template.train()
        # Dropout, if any, draws from the global RNG: fork and seed it.
        with seeded_rng(self.points[0][1], self.device):
            for step in range(1, settings.max_steps + 1):
                self._step(step)
                if is_eval_step(step, settings):
                    self._evaluate_and_retire(step)
                    if not self.active:
                        break
        return [self.results[i] for i in range(len(self.points))]

    def _step(self, step: int) -> None:
        indices = torch.stack(
            [self.batches.indices(g, self.settings.batch_size) for g in self.generators]
        )  # [R, B]
        input_ids, labels = self.batches.take(indices)  # [R, B, T]
        positions = [] if self.offsets[0] is None else [torch.stack(
            [o.draw(*input_ids.shape[1:]) for o in self.offsets]).to(self.device)]  # [R, B, T]
        with self.settings.autocast(self.device):
            logits = self.train_forward(self.params, self.buffers, input_ids,
                                        *positions)  # [R, B, T, V]
        losses = causal_lm_loss_per_run(logits, labels)  # [R]
        newly_bad = (self.bad_step == 0) & ~torch.isfinite(losses.detach())
        self.bad_step = torch.where(newly_bad, step, self.bad_step)
        self.train_sum += losses.detach().to(torch.float64)
        self.train_count += 1
        names = list(self.params)
        # Runs are independent, so the gradient of the sum is each run's own gradient.
        grads = torch.autograd.grad(
            losses.sum(), [self.params[k] for k in names], allow_unused=True
        )
        stacked_clip(list(grads), self.settings.max_grad_norm)
        settings = self.settings
        scale = lr_factor(step - 1, settings.max_steps, settings.warmup, settings.lr_schedule)
        self.optimizer.step(self.params, dict(zip(names, grads, strict=True)), lr_scale=scale)

    @torch.no_grad()
    def _validation_losses(self) -> list[float]:
        self.template.eval()
        sums = torch.zeros(len(self.active), dtype=torch.float64, device=self.device)
        count = 0
        for input_ids, labels in self.val_chunks:
            with self.settings.autocast(self.device):
                logits = self.eval_forward(self.params, self.buffers, input_ids)  # [R, B, T, V]
            chunk_sums, chunk_counts = causal_lm_loss_sum_per_run(logits, labels)
            sums += chunk_sums.to(torch.float64)
            count += int(chunk_counts[0])
        self.template.train()
        return (sums / count).tolist()

    def _evaluate_and_retire(self, step: int) -> None:
        bad_steps = self.bad_step.tolist()
        train_losses = (self.train_sum / self.train_count).tolist()
        self.train_sum.zero_()
        self.train_count = 0
        val_losses = self._validation_losses()
        self.clock.charge(self.active, time.perf_counter())
        ending: dict[int, tuple[StopReason, int]] = {}
        for slot, run in enumerate(self.active):
            if bad_steps[slot]:
                ending[slot] = ("nonfinite", bad_steps[slot])
                continue
            reason = self.trackers[run].observe(step, val_losses[slot], train_losses[slot])
            if reason is not None:
                ending[slot] = (reason, step)
        if self.settings.stop_on_first_success and any(r == "epsilon" for r, _ in ending.values()):
            for slot in range(len(self.active)):
                ending.setdefault(slot, ("probe_decided", step))
        if not ending:
            return
        for slot in sorted(ending, key=lambda s: self.active[s]):
            run = self.active[slot]
            reason, steps = ending[slot]
            lr, seed = self.points[run]
            self.results[run] = self.trackers[run].result(
                lr, seed, steps, self.clock.shares[run], reason)
            if self.on_weights is not None:
                self.on_weights(self.results[run], stacked_weights(
                    self.params, self.buffers, slot, self.prefix))
            if self.on_run_done is not None:
                self.on_run_done(self.results[run])
        self._keep([slot for slot in range(len(self.active)) if slot not in ending])

    def _keep(self, slots: list[int]) -> None:
        """Drop finished runs from every stacked tensor."""
        self.active = [self.active[slot] for slot in slots]
        self.generators = [self.generators[slot] for slot in slots]
        self.offsets = [self.offsets[slot] for slot in slots]
        if not slots:
            return
        index = torch.tensor(slots, device=self.device)
        self.params = {k: v.detach()[index].requires_grad_() for k, v in self.params.items()}
        self.buffers = {k: v[index] for k, v in self.buffers.items()}
        self.bad_step = self.bad_step[index]
        self.train_sum = self.train_sum[index]
        self.optimizer.keep(index)
