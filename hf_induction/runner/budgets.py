"""Named budgets: the model size, and the models that train at their own budget, of each
``--budget`` (``--preset``, its former name). The value of each setting under a budget is
declared with the setting (`settings.declared`); `Budget` reads it there.

Under the cpu preset each model trains at its own budget (`ModelSpec.cpu_budget`, in its
folder or spec module); a flag given on the command line wins over it, and it over the
preset's values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..models import registry
from ..models.source import ModelSource
from ..settings import SETTINGS

_BY_NAME = {s.name: s for s in SETTINGS}


@dataclass(frozen=True)
class Budget:
    """What ``--budget`` selects (``--preset``, its former name); every setting it gives can be
    overridden on the command line.

    ``budget.value("max_steps")`` (any setting's name) is the setting's value under this
    budget."""

    name: str
    # The size its models are built at, one of each spec's sizes (`ModelSpec.presets`: tiny
    # or paper).
    model_size: str
    # Each model trains at its own CPU budget (`ModelSource.cpu_budget`) in place of the
    # preset's max_steps, eval_every and lrs.
    own_model_budgets: bool = False
    # The models whose own budgets every protocol of this preset records, whichever models a
    # launch names, so that launches naming other models share one results folder. The
    # published folders made under the cpu preset (results/cpu, cpu_m, gpt2_l10) record
    # exactly these three; a model given a budget of its own later is recorded when a launch
    # names it (`per_model_for`), so that those folders still resume.
    recorded_models: tuple[str, ...] = ()

    def value(self, name: str) -> Any:
        """The value of the setting ``name`` under this preset."""
        if name not in _BY_NAME:
            raise ValueError(f"no setting {name!r}; the settings: {', '.join(_BY_NAME)}")
        return _BY_NAME[name].under(self.name)

    def values(self) -> dict[str, Any]:
        """{setting: value} under this preset."""
        return {name: s.under(self.name) for name, s in _BY_NAME.items()}

    def model_fields(self, model: ModelSource) -> dict[str, Any]:
        """{field: value} of `spec.BUDGET_FIELDS` the model trains with in place of this budget's
        (empty where the preset gives models none of their own)."""
        return model.cpu_budget.fields() if self.own_model_budgets else {}

    @property
    def per_model(self) -> Mapping[str, Mapping[str, Any]]:
        """{model: {field: value}} for the models every protocol of this preset records."""
        return self.per_model_for(())

    def per_model_for(self, models: Iterable[ModelSource | str]) -> dict[str, dict[str, Any]]:
        """{model: {field: value}} for the recorded models and the models named, each whose
        own budget sets a field. ``models`` are sources as the plan looked them up (a name is
        looked up here), and win over the recorded models' own lookup."""
        sources = {**self.recorded_sources,
                   **{source.name: source for source in map(registry.source_of, models)}}
        named = dict.fromkeys([*self.recorded_models, *sources])
        return {name: fields for name in named if (fields := self.model_fields(sources[name]))}

    @cached_property
    def recorded_sources(self) -> dict[str, ModelSource]:
        """The recorded models' sources, looked up once (the help text and the campaign's
        settings both read them)."""
        return {name: registry.model_source(name) for name in self.recorded_models}


BUDGETS: dict[str, Budget] = {
    # The paper: 250,000 Adam steps at batch 64, lr {1e-3, 1e-4, 1e-5} x seed {10..50}.
    "paper": Budget("paper", "paper"),
    # A CPU-sized budget, the default: the tiny models at their own rates and paces (each
    # model's spec says why its values); the preset's own are the Dense-SSM's, and a 2 x 2
    # grid keeps a kappa table to minutes.
    "cpu": Budget("cpu", "tiny", own_model_budgets=True,
                  recorded_models=("gpt2", "lstm", "mamba")),
    # Fine-tuning a pretrained model (--model pretrained:PATH), as the second study fine-tuned
    # GPT-2 1.5B: AdamW at lr 1e-5, weight decay 0.01, a linear warmup over 15% of the steps
    # then a linear decay (the Trainer's schedule), gradients clipped at 1.0, batch 64, and
    # absolute positions trained from random offsets. Ours: 3,000 steps (the study trained 15
    # epochs of its set), evaluated every 250, three seeds, validation 16 rows a forward.
    "finetune": Budget("finetune", "paper"),
}
