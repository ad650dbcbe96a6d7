"""The obvious way to train the grid: `transformers.Trainer`, one run at a time, full budget.

This is the baseline the benchmark (`search_speedup_vs_trainer`) measures our trainer
against; nothing else uses it, so it lives beside the benchmarks, not in the package. Each
run is a fresh `Trainer` with the same model, learning rate, seed, batch size, Adam
(``adamw_torch`` with weight decay 0 is Adam) and constant learning rate as `train_run`, the
model's own loss (the rows' labels follow the causal-LM convention, so no `compute_loss`
override is needed) and the same validation set, evaluated every ``eval_every`` steps. It
differs from our trainer only in what makes ours fast: it never stops early (neither on
success nor when another run has decided the probe) and it trains the 15 runs one after
another.

Batches: with ``batches="protocol"`` (the default) the Trainer's sampler draws the protocol's
batches, ``batch_size`` rows with replacement from a generator seeded with the run's seed, the
very rows `train_run` draws; so both trainers follow the same trajectory up to floating-point
rounding, and their N* can be compared exactly. ``batches="epochs"`` keeps the Trainer's own
shuffled epochs (below 64 rows every step is then the whole training set, a different
procedure: docs/benchmarks.md measures what that changes).
"""

from __future__ import annotations

import math
import os
import tempfile
import time

import torch
from torch.utils.data import Dataset, Sampler

from hf_induction.training.settings import RunResult, TrainSettings
from hf_induction.training.steps import ModelFactory, check_size, seeded_model
from hf_induction.training.tensors import TrainData

BATCH_ORDERS = ("protocol", "epochs")


class _Rows(Dataset):
    def __init__(self, input_ids: torch.Tensor, labels: torch.Tensor) -> None:
        self.input_ids, self.labels = input_ids.long(), labels.long()

    def __len__(self) -> int:
        return self.input_ids.shape[0]

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"input_ids": self.input_ids[i], "labels": self.labels[i]}


class ProtocolBatches(Sampler[int]):
    """Row indices in `train_run`'s order: per step, ``batch_size`` draws with replacement
    from a generator seeded with the run's seed (the DataLoader cuts them into batches)."""

    def __init__(self, n: int, batch_size: int, steps: int, seed: int) -> None:
        self.n, self.batch_size, self.steps, self.seed = n, batch_size, steps, seed

    def __len__(self) -> int:
        return self.batch_size * self.steps

    def __iter__(self):
        generator = torch.Generator().manual_seed(self.seed)
        for _ in range(self.steps):
            yield from torch.randint(self.n, (self.batch_size,), generator=generator).tolist()


def _trainer_class():
    from transformers import Trainer

    class ProtocolTrainer(Trainer):
        """A stock `Trainer` whose sampler is ``train_sampler`` when one is given."""

        train_sampler: Sampler | None = None

        def _get_train_sampler(self, *args, **kwargs):
            if self.train_sampler is not None:
                return self.train_sampler
            return super()._get_train_sampler(*args, **kwargs)

    return ProtocolTrainer


def trainer_run(
    model_factory: ModelFactory,
    data: TrainData,
    n: int,
    lr: float,
    seed: int,
    settings: TrainSettings,
    batches: str = "protocol",
) -> RunResult:
    """One run with `transformers.Trainer` for the whole ``settings.max_steps`` budget.

    The run succeeds when any of its evaluations (every ``eval_every`` steps and the last)
    is below ε, the rule `train_run` applies; it just does not stop there. ``batches``: one
    of `BATCH_ORDERS` (module docstring).
    """
    from transformers import PrinterCallback, TrainingArguments

    if batches not in BATCH_ORDERS:
        raise ValueError(f"batches must be one of {BATCH_ORDERS}, got {batches!r}")
    check_size(data, n)
    start = time.perf_counter()
    model = seeded_model(model_factory, seed, torch.device(settings.device), settings.torch_dtype)
    train = _Rows(data.train_input_ids[:n], data.train_labels[:n])
    val = _Rows(data.val_input_ids, data.val_labels)
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            max_steps=settings.max_steps,
            per_device_train_batch_size=settings.batch_size,
            # The whole validation set in one batch, so the Trainer's mean over batches is
            # the token mean `evaluate` computes.
            per_device_eval_batch_size=len(val),
            learning_rate=lr,
            weight_decay=0.0,
            optim="adamw_torch",
            lr_scheduler_type="constant",
            warmup_steps=0,
            max_grad_norm=0.0,
            seed=seed,
            data_seed=seed,
            eval_strategy="steps",
            eval_steps=settings.eval_every,
            save_strategy="no",
            logging_strategy="no",
            report_to=[],
            disable_tqdm=True,
            use_cpu=settings.device == "cpu",
            bf16=settings.mixed_precision == "bf16",
            dataloader_drop_last=False,
        )
        trainer = _trainer_class()(model=model, args=args, train_dataset=train, eval_dataset=val)
        if batches == "protocol":
            trainer.train_sampler = ProtocolBatches(
                n, settings.batch_size, settings.max_steps, seed
            )
        # With tqdm off, the Trainer prints every evaluation; the figures are read back below.
        trainer.remove_callback(PrinterCallback)
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        trainer.train()
        losses = [e["eval_loss"] for e in trainer.state.log_history if "eval_loss" in e]
        # An evaluation at the last step, as `train_run` always does.
        if trainer.state.global_step % settings.eval_every != 0:
            losses.append(trainer.evaluate()["eval_loss"])
    finite = [v for v in losses if math.isfinite(v)]
    best = min(finite, default=math.inf)
    success = best < settings.epsilon
    return RunResult(
        lr=lr,
        seed=seed,
        success=success,
        best_val_loss=best,
        final_val_loss=losses[-1] if losses else math.inf,
        steps=trainer.state.global_step,
        wall_s=time.perf_counter() - start,
        stop_reason="epsilon" if success else "budget",
    )


def trainer_grid(
    model_factory: ModelFactory,
    data: TrainData,
    n: int,
    settings: TrainSettings,
    batches: str = "protocol",
) -> list[RunResult]:
    """Every (lr, seed) run of the grid, one `Trainer` after another, none stopped early."""
    return [
        trainer_run(model_factory, data, n, lr, seed, settings, batches)
        for lr, seed in settings.grid
    ]
