"""Named budgets: the model preset, the step budget and the grid Φ a search runs under.

Under the cpu preset each model trains at its own budget (`ModelSpec.cpu_budget`, in its
folder or spec module); a flag given on the command line wins over it, and it over the
preset's values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..models.registry import cpu_budget


@dataclass(frozen=True)
class Budget:
    """What ``--preset`` selects; every field can be overridden on the command line."""

    model_preset: str
    max_steps: int
    eval_every: int
    lrs: tuple[float, ...]
    seeds: tuple[int, ...]
    batch_size: int = 64
    epsilon: float = 1e-4
    # Refined search starts here; the paper's Algorithm 1 ignores it.
    n_start: int = 16
    # The early-failure rule (`training.early.parse_early_failure`); "off" trains every run
    # to its budget, as the paper does.
    early_failure: str = "off"
    # Each model trains at its own CPU budget (`registry.cpu_budget`) in place of
    # max_steps, eval_every and lrs above.
    own_model_budgets: bool = False
    # The models whose own budgets every protocol of this preset records, whichever models a
    # launch names, so that launches naming other models share one results folder. The
    # published folders made under the cpu preset (results/cpu, cpu_m, gpt2_l10) record
    # exactly these three; a model given a budget of its own later is recorded when a launch
    # names it (`per_model_for`), so that those folders still resume.
    recorded_models: tuple[str, ...] = ()
    # The optimizer (`TrainSettings`): at these defaults, Adam at a constant rate.
    weight_decay: float = 0.0
    warmup: float = 0.0
    lr_schedule: str = "constant"
    max_grad_norm: float | None = None
    # Random position offsets in training, for models with absolute positions.
    position_offsets: bool = False
    # Validation rows per forward (not part of the protocol): a pretrained model's logits
    # over its whole vocabulary are large.
    eval_batch_size: int = 256

    def model_fields(self, model: str) -> dict[str, Any]:
        """{field: value} of `spec.BUDGET_FIELDS` the model trains with in place of this budget's
        (empty where the preset gives models none of their own)."""
        return cpu_budget(model).fields() if self.own_model_budgets else {}

    @property
    def per_model(self) -> Mapping[str, Mapping[str, Any]]:
        """{model: {field: value}} for the models every protocol of this preset records."""
        return self.per_model_for(())

    def per_model_for(self, models: Iterable[str]) -> dict[str, dict[str, Any]]:
        """{model: {field: value}} for the recorded models and the models named, each whose
        own budget sets a field."""
        named = dict.fromkeys([*self.recorded_models, *models])
        return {model: fields for model in named if (fields := self.model_fields(model))}


BUDGETS: dict[str, Budget] = {
    # The paper: 250,000 Adam steps at batch 64, lr {1e-3, 1e-4, 1e-5} x seed {10..50}.
    "paper": Budget("paper", 250_000, 1000, (1e-3, 1e-4, 1e-5), (10, 20, 30, 40, 50)),
    # A CPU-sized budget, the default: the tiny models at their own rates and paces (each
    # model's spec says why its values); these are the Dense-SSM's, and a 2 x 2 grid keeps a
    # kappa table to minutes.
    # The forecast rule changed no N* on the 13 benchmark cells and cut their steps 2.15x
    # (docs/benchmarks.md, early decisions).
    "cpu": Budget("tiny", 1500, 50, (3e-2, 1e-2), (10, 20), n_start=8,
                  early_failure="forecast", own_model_budgets=True,
                  recorded_models=("gpt2", "lstm", "mamba")),
    # Fine-tuning a pretrained model (--model pretrained:PATH), as the second study fine-tuned
    # GPT-2 1.5B: AdamW at lr 1e-5, weight decay 0.01, a linear warmup over 15% of the steps
    # then a linear decay (the Trainer's schedule), gradients clipped at 1.0, batch 64, and
    # absolute positions trained from random offsets. Ours: 3,000 steps (the study trained 15
    # epochs of its set), evaluated every 250, three seeds, validation 16 rows a forward.
    "finetune": Budget("paper", 3000, 250, (1e-5,), (10, 20, 30), weight_decay=0.01,
                       warmup=0.15, lr_schedule="linear", max_grad_norm=1.0,
                       position_offsets=True, eval_batch_size=16),
}
