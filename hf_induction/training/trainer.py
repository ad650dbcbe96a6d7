"""One run: the slow, obviously-correct reference trainer."""

from __future__ import annotations

import math
import time
from contextlib import nullcontext
from functools import partial
from typing import Any

import torch
from torch import nn

from hf_induction.training.loss import causal_lm_loss, causal_lm_loss_sum
from hf_induction.training.optim import build_optimizer, clip
from hf_induction.training.positions import position_offsets
from hf_induction.training.settings import EvalCallback, RunResult, TrainSettings
from hf_induction.training.steps import (
    ModelFactory,
    TrainBatches,
    is_eval_step,
    logits_of,
    seeded_model,
    seeded_rng,
    validation_chunks,
)
from hf_induction.training.tensors import TrainData
from hf_induction.training.tracker import RunTracker


@torch.no_grad()
def evaluate(model: nn.Module, chunks: list[tuple[torch.Tensor, torch.Tensor]],
             precision=nullcontext) -> float:
    """Token-mean causal-LM loss of ``model`` over the whole validation set; each forward
    runs in a fresh ``precision()`` context (`TrainSettings.autocast`)."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for input_ids, labels in chunks:
        with precision():
            logits = logits_of(model(input_ids=input_ids))
        chunk_sum, chunk_count = causal_lm_loss_sum(logits, labels)
        total += float(chunk_sum)
        count += chunk_count
    model.train(was_training)
    return total / count


def train_run(*args: Any, **kwargs: Any) -> RunResult:
    """Train one model on the first ``n`` training rows with Adam (or AdamW: `optim`); the
    reference trainer. Arguments as `train_model` (model_factory, data, n, lr, seed, settings,
    on_eval), whose result this is without the model.

    ``on_eval(lr, seed, step, val_loss)`` hears every evaluation."""
    return train_model(*args, **kwargs)[0]


def train_model(
    model_factory: ModelFactory,
    data: TrainData,
    n: int,
    lr: float,
    seed: int,
    settings: TrainSettings,
    on_eval: EvalCallback | None = None,
) -> tuple[RunResult, nn.Module]:
    """``train_run`` that also returns the trained model (for checkpoints and OOD tests).

    Every step draws ``batch_size`` rows with replacement (their positions from random
    offsets where the settings and the model ask for them: `positions`), takes one optimizer
    step on the causal-LM loss, and every ``eval_every`` steps measures the validation loss.
    The run stops on success (validation loss < ε), on a spent budget, on a non-finite loss
    (a failure, never an exception) or, if enabled, on the early-failure rule.
    """
    device = torch.device(settings.device)
    start = time.perf_counter()
    batches = TrainBatches(data, n, device)
    val_chunks = validation_chunks(data, settings, device)
    generator = torch.Generator().manual_seed(seed)
    tracker = RunTracker(settings, lr, seed, on_eval, n, data.whole_pool)
    model = seeded_model(model_factory, seed, device, settings.torch_dtype)
    model.train()
    optimizer, scheduler = build_optimizer(model, lr, settings)
    offsets = position_offsets(model, data, settings, seed)
    precision = partial(settings.autocast, device)
    train_sum, train_count = 0.0, 0  # batch losses since the last evaluation
    # Dropout, if the model has any, draws from the global RNG: fork and seed it too.
    with seeded_rng(seed, device):
        for step in range(1, settings.max_steps + 1):
            input_ids, labels = batches.take(batches.indices(generator, settings.batch_size))
            positions = {} if offsets is None else {
                "position_ids": offsets.draw(*input_ids.shape).to(device)}
            with precision():
                logits = logits_of(model(input_ids=input_ids, **positions))
            loss = causal_lm_loss(logits, labels)
            loss_value = loss.item()
            if not math.isfinite(loss_value):
                return tracker.result(lr, seed, step, time.perf_counter() - start,
                                      "nonfinite"), model
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            clip(model.parameters(), settings)
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            train_sum, train_count = train_sum + loss_value, train_count + 1
            if is_eval_step(step, settings):
                reason = tracker.observe(step, evaluate(model, val_chunks, precision),
                                         train_sum / train_count)
                train_sum, train_count = 0.0, 0
                if reason is not None:
                    return tracker.result(lr, seed, step, time.perf_counter() - start,
                                          reason), model
    raise AssertionError("unreachable: the last step is always evaluated")
