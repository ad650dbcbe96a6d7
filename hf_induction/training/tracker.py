"""When a run stops and what it reports: one rule for the sequential trainer, the stacked
grid and the replay of recorded curves."""

from __future__ import annotations

import math

from hf_induction.training.settings import EvalCallback, RunResult, StopReason, TrainSettings


class RunTracker:
    """The stopping rule of one run, shared by the sequential and the stacked trainers.

    ``on_eval`` (lr, seed, step, loss), if given, hears every validation loss it observes;
    ``n`` and ``pool`` (the training-set size and the cell's whole training pool, where known)
    tell an early-failure rule which probe it is deciding.
    """

    def __init__(self, settings: TrainSettings, lr: float = 0.0, seed: int = 0,
                 on_eval: EvalCallback | None = None, n: int | None = None,
                 pool: int | None = None) -> None:
        self.settings = settings
        self.lr, self.seed = lr, seed
        self.on_eval = on_eval
        self.best = math.inf
        self.final = math.inf
        rule = settings.early_failure
        self._early = None if rule is None else rule.state(n, pool)

    def observe(self, step: int, val_loss: float, train_loss: float = math.nan
                ) -> StopReason | None:
        """Record the validation loss measured after ``step`` steps (and the mean training
        batch loss since the previous evaluation); say why to stop, if so."""
        s = self.settings
        if self.on_eval is not None:
            self.on_eval(self.lr, self.seed, step, val_loss, train_loss)
        self.final = val_loss
        if not math.isfinite(val_loss):
            return "nonfinite"
        self.best = min(self.best, val_loss)
        if val_loss < s.epsilon:
            return "epsilon"
        if step >= s.max_steps:
            return "budget"
        if self._early is not None and self._early.hopeless(
                step, self.best, val_loss, train_loss, s.max_steps, s.epsilon):
            return "early_failure"
        return None

    def result(self, lr: float, seed: int, steps: int, wall_s: float, reason: StopReason):
        return RunResult(
            lr=lr,
            seed=seed,
            success=reason == "epsilon",
            best_val_loss=self.best,
            final_val_loss=self.final,
            steps=steps,
            wall_s=wall_s,
            stop_reason=reason,
        )
