"""Where a model comes from, as the registry found it once (`registry.model_source`): a
`ModelSpec` (ours, an installed package's, a file's or a module's), a transformers config
(``hf:``) or a checkpoint to fine-tune (``pretrained:``), each with its CPU budget.

A source is plain data and loads without torch: the plan looks each ``--model`` name up once
and hands its source to the settings (the budget) and to the builder (`build.resolve_model`:
config, tokenizer, factory, hash), so that nothing after the plan parses the name again.
"""

from __future__ import annotations

from dataclasses import dataclass

from .spec import CpuBudget, ModelSpec


@dataclass(frozen=True)
class ModelSource:
    """A model name looked up: ``name`` as given (the name results record) and how the model
    trains under ``--budget cpu``."""

    name: str
    cpu_budget: CpuBudget


@dataclass(frozen=True)
class SpecSource(ModelSource):
    """A model its `ModelSpec` describes, built at the task's vocabulary from a preset."""

    spec: ModelSpec


@dataclass(frozen=True)
class ConfigSource(ModelSource):
    """``hf:WHERE``: the config of a folder or Hub id, trained from scratch at the task's
    vocabulary."""

    where: str


@dataclass(frozen=True)
class CheckpointSource(ModelSource):
    """``pretrained:WHERE``: a checkpoint (folder or Hub id) whose weights are fine-tuned,
    reading the task through its own tokenizer."""

    where: str
