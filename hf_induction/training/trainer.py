"""One run: the slow, obviously-correct reference trainer, and the helpers the grid shares."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import partial

import torch
from torch import nn

from hf_induction.training.data import TrainData, supervised_lengths
from hf_induction.training.loss import causal_lm_loss, causal_lm_loss_sum
from hf_induction.training.settings import EvalCallback, RunResult, RunTracker, TrainSettings

ModelFactory = Callable[[], nn.Module]


@contextmanager
def seeded_rng(seed: int, device: torch.device) -> Iterator[None]:
    """Seed the global RNG (initialisation, dropout) without leaking state to the caller."""
    devices = []
    if device.type == "cuda":
        devices = [device.index if device.index is not None else torch.cuda.current_device()]
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield


def seeded_model(model_factory: ModelFactory, seed: int, device: torch.device,
                 dtype: torch.dtype | None = None) -> nn.Module:
    """Call the factory under ``torch.manual_seed(seed)`` and move the model to ``device``
    (and ``dtype``, if given)."""
    with seeded_rng(seed, device):
        model = model_factory()
    # transformers models look for PAD in every batch (a host sync per step, and a `.item()`
    # that vmap rejects) to warn about a missing attention mask. Our batches are right-padded
    # and the models causal, so padding never reaches a supervised position: skip the check.
    for module in model.modules():
        if hasattr(module, "warn_if_padding_and_no_attention_mask"):
            module.warn_if_padding_and_no_attention_mask = _no_padding_check
    return model.to(device=device, dtype=dtype)


def _no_padding_check(input_ids: torch.Tensor, attention_mask: torch.Tensor | None) -> None:
    return None


def logits_of(output) -> torch.Tensor:
    """Model outputs are ``ModelOutput``s with ``.logits``; a bare tensor is taken as is."""
    return output if isinstance(output, torch.Tensor) else output.logits


def check_size(data: TrainData, n: int) -> None:
    if not 1 <= n <= data.pool_size:
        raise ValueError(f"n must lie in [1, {data.pool_size}] (the pool size), got {n}")


def trimmed(input_ids: torch.Tensor, labels: torch.Tensor, length: int):
    """A batch cut to ``length`` label columns (one past its last supervised label) and the
    inputs that predict them: ``input_ids[..., :length-1]``, ``labels[..., :length]``.

    The output at the last input position predicts nothing, so it is never computed; the loss
    then pairs output j with label j + 1, exactly as ``model(input_ids, labels=labels).loss``.
    """
    return input_ids[..., : length - 1], labels[..., :length]


class TrainBatches:
    """Batches drawn with replacement from the first ``n`` training rows.

    The draw uses a local CPU generator seeded with the run's seed, so a seed gives the same
    batches on every device. Columns past the batch's last supervised label are cut off.
    The rows stay in the pool's dtype (int8 for most cells; a 16M-row pool widened to int64
    would take 16 GB) and only a batch is widened.
    """

    def __init__(self, data: TrainData, n: int, device: torch.device) -> None:
        check_size(data, n)
        self.n = n
        self.input_ids = data.train_input_ids[:n].to(device)
        self.labels = data.train_labels[:n].to(device)
        self.lengths = supervised_lengths(data.train_labels[:n]).cpu()
        self.device = device

    def indices(self, generator: torch.Generator, batch_size: int) -> torch.Tensor:
        return torch.randint(self.n, (batch_size,), generator=generator)

    def take(self, indices: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Rows ``indices`` (any shape ``[..., B]``) as (inputs, labels), `trimmed`."""
        length = int(self.lengths[indices].max())
        rows = indices.to(self.device)
        input_ids, labels = trimmed(self.input_ids[rows], self.labels[rows], length)
        return input_ids.long(), labels.long()


def validation_chunks(
    data: TrainData, settings: TrainSettings, device: torch.device
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The validation set in chunks of ``eval_batch_size`` rows, each `trimmed`, on ``device``."""
    lengths = supervised_lengths(data.val_labels)
    chunks = []
    for start in range(0, data.val_input_ids.shape[0], settings.eval_batch_size):
        stop = start + settings.eval_batch_size
        ids, labels = trimmed(data.val_input_ids[start:stop], data.val_labels[start:stop],
                              int(lengths[start:stop].max()))
        chunks.append((ids.to(device, torch.long), labels.to(device, torch.long)))
    return chunks


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


def is_eval_step(step: int, settings: TrainSettings) -> bool:
    return step % settings.eval_every == 0 or step == settings.max_steps


def train_run(
    model_factory: ModelFactory,
    data: TrainData,
    n: int,
    lr: float,
    seed: int,
    settings: TrainSettings,
    on_eval: EvalCallback | None = None,
) -> RunResult:
    """Train one model on the first ``n`` training rows with Adam; the reference trainer.

    ``on_eval(lr, seed, step, val_loss)`` hears every evaluation."""
    return train_model(model_factory, data, n, lr, seed, settings, on_eval)[0]


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

    Every step draws ``batch_size`` rows with replacement, takes one Adam step on the causal-LM
    loss, and every ``eval_every`` steps measures the validation loss. The run stops on
    success (validation loss < ε), on a spent budget, on a non-finite loss (a failure, never
    an exception) or, if enabled, on the early-failure rule.
    """
    device = torch.device(settings.device)
    start = time.perf_counter()
    batches = TrainBatches(data, n, device)
    val_chunks = validation_chunks(data, settings, device)
    generator = torch.Generator().manual_seed(seed)
    tracker = RunTracker(settings, lr, seed, on_eval, n, data.whole_pool)
    model = seeded_model(model_factory, seed, device, settings.torch_dtype)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    precision = partial(settings.autocast, device)
    train_sum, train_count = 0.0, 0  # batch losses since the last evaluation
    # Dropout, if the model has any, draws from the global RNG: fork and seed it too.
    with seeded_rng(seed, device):
        for step in range(1, settings.max_steps + 1):
            input_ids, labels = batches.take(batches.indices(generator, settings.batch_size))
            with precision():
                logits = logits_of(model(input_ids=input_ids))
            loss = causal_lm_loss(logits, labels)
            loss_value = loss.item()
            if not math.isfinite(loss_value):
                return tracker.result(lr, seed, step, time.perf_counter() - start,
                                      "nonfinite"), model
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            train_sum, train_count = train_sum + loss_value, train_count + 1
            if is_eval_step(step, settings):
                reason = tracker.observe(step, evaluate(model, val_chunks, precision),
                                         train_sum / train_count)
                train_sum, train_count = 0.0, 0
                if reason is not None:
                    return tracker.result(lr, seed, step, time.perf_counter() - start,
                                          reason), model
    raise AssertionError("unreachable: the last step is always evaluated")
