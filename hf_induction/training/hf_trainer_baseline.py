"""The obvious way to train the grid: `transformers.Trainer`, one run at a time, full budget.

This is the baseline `scripts/bench.py` (`search_speedup_vs_trainer`) measures our trainer
against; nothing else uses it. Each run is a fresh `Trainer` with the same model, learning
rate, seed, batch size, Adam (``adamw_torch`` with weight decay 0 is Adam) and constant
learning rate as `train_run`, the same aligned loss (no shift; a `compute_loss` override)
and the same validation set, evaluated every ``eval_every`` steps. It differs from our
trainer only in what makes ours fast: it never stops early (neither on success nor when
another run has decided the probe), it trains the 15 runs one after another, and it draws
batches the Trainer's way (shuffled epochs rather than draws with replacement), so its
trajectories differ from ours in the batches only.
"""

from __future__ import annotations

import math
import os
import tempfile
import time

import torch
from torch.utils.data import Dataset

from hf_induction.training.data import TrainData
from hf_induction.training.loss import aligned_loss
from hf_induction.training.settings import RunResult, TrainSettings
from hf_induction.training.trainer import ModelFactory, check_size, logits_of, seeded_model


class _Rows(Dataset):
    def __init__(self, input_ids: torch.Tensor, labels: torch.Tensor) -> None:
        self.input_ids, self.labels = input_ids.long(), labels.long()

    def __len__(self) -> int:
        return self.input_ids.shape[0]

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"input_ids": self.input_ids[i], "labels": self.labels[i]}


def _trainer_class():
    from transformers import Trainer

    class AlignedLossTrainer(Trainer):
        """A `Trainer` whose loss is the aligned loss (the model's own loss would shift)."""

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            logits = logits_of(model(input_ids=inputs["input_ids"]))
            loss = aligned_loss(logits, inputs["labels"])
            return (loss, {"logits": logits}) if return_outputs else loss

    return AlignedLossTrainer


def trainer_run(
    model_factory: ModelFactory,
    data: TrainData,
    n: int,
    lr: float,
    seed: int,
    settings: TrainSettings,
) -> RunResult:
    """One run with `transformers.Trainer` for the whole ``settings.max_steps`` budget.

    The run succeeds when any of its evaluations (every ``eval_every`` steps and the last)
    is below ε, the rule `train_run` applies; it just does not stop there.
    """
    from transformers import PrinterCallback, TrainingArguments

    check_size(data, n)
    start = time.perf_counter()
    model = seeded_model(model_factory, seed, torch.device(settings.device))
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
            dataloader_drop_last=False,
        )
        trainer = _trainer_class()(model=model, args=args, train_dataset=train, eval_dataset=val)
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
    model_factory: ModelFactory, data: TrainData, n: int, settings: TrainSettings
) -> list[RunResult]:
    """Every (lr, seed) run of the grid, one `Trainer` after another, none stopped early."""
    return [trainer_run(model_factory, data, n, lr, seed, settings) for lr, seed in settings.grid]
