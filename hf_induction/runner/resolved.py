"""A campaign's models, each source (looked up once, at the plan) resolved once per cell: its
config at the cell's vocabulary, its tokenizer, the ids it reads the cell in, its factory and
its hash. The command line's checks and the jobs that run share the one resolution."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..data import TokenMap
from ..models import registry
from ..models.build import ResolvedModel, resolve_model
from ..models.source import ModelSource
from ..tasks import TaskCell


def token_map(model: ResolvedModel, cell: TaskCell) -> TokenMap:
    """The ids ``model`` reads ``cell`` in: the task's own, or for a model with a tokenizer of
    its own (pretrained) each task token as one of its tokens (`TokenMap.build`, a ValueError
    of one line where it has too few)."""
    if model.tokenizer is None:
        return TokenMap.identity(cell.vocab)
    return TokenMap.build(cell, model.tokenizer, size=model.config.vocab_size,
                          name=f"{model.name}'s tokenizer")


@dataclass(frozen=True)
class JobModel:
    """A model resolved for one cell, and the ids it reads that cell in."""

    model: ResolvedModel
    tokens: TokenMap


class CampaignModels:
    """The models of a campaign under its model preset, each (name, cell) resolved on first
    use and kept: asked again, by a check or a job, it is handed over, not rebuilt.

    ``sources`` are the plan's (`registry.model_source`, once per name); a name the plan did
    not look up (a campaign built by hand) is looked up on first use, once."""

    def __init__(self, preset: str, sources: Mapping[str, ModelSource] | None = None) -> None:
        self.preset = preset
        self._sources: dict[str, ModelSource] = dict(sources or {})
        self._resolved: dict[tuple[str, TaskCell], JobModel] = {}

    def source(self, name: str) -> ModelSource:
        if name not in self._sources:
            self._sources[name] = registry.model_source(name)
        return self._sources[name]

    def __call__(self, name: str, cell: TaskCell) -> JobModel:
        key = (name, cell)
        if key not in self._resolved:
            model = resolve_model(self.source(name), cell.vocab, self.preset)
            self._resolved[key] = JobModel(model, token_map(model, cell))
        return self._resolved[key]
