"""What the sequential and the stacked trainers share: a seeded model, the batches a seed
draws, the validation chunks, the step at which a run is evaluated."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch
from torch import nn

from hf_induction.training.settings import TrainSettings
from hf_induction.training.tensors import TrainData, supervised_lengths

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


def is_eval_step(step: int, settings: TrainSettings) -> bool:
    return step % settings.eval_every == 0 or step == settings.max_steps
