"""One trainer for one run and for a stacked grid of runs; the causal-LM loss; evaluation."""

from hf_induction.training.adam import StackedAdam
from hf_induction.training.early import Forecast, Patience, parse_early_failure
from hf_induction.training.grid import VmapForward, train_grid, vmap_unsupported_reason
from hf_induction.training.loss import (
    causal_lm_loss,
    causal_lm_loss_per_run,
    causal_lm_loss_sum,
    causal_lm_loss_sum_per_run,
)
from hf_induction.training.settings import RunResult, TrainSettings
from hf_induction.training.tensors import IGNORE_INDEX, TrainData
from hf_induction.training.trainer import evaluate, train_model, train_run

__all__ = [
    "IGNORE_INDEX",
    "Forecast",
    "Patience",
    "RunResult",
    "StackedAdam",
    "TrainData",
    "TrainSettings",
    "VmapForward",
    "causal_lm_loss",
    "causal_lm_loss_per_run",
    "causal_lm_loss_sum",
    "causal_lm_loss_sum_per_run",
    "evaluate",
    "parse_early_failure",
    "train_grid",
    "train_model",
    "train_run",
    "vmap_unsupported_reason",
]
