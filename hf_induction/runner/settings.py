"""The training and search settings a campaign runs under, resolved once from the values given
(flags, recipe, sweep budget), the preset, and each model's own budget under it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..search import SearchSettings
from ..settings import SEARCH, TRAINING, built, resolve
from .budgets import BUDGETS

if TYPE_CHECKING:
    from ..models.source import ModelSource
    from ..training import TrainSettings


@dataclass(frozen=True)
class CampaignSettings:
    """``train`` and ``search`` for every model, and ``by_model`` for those whose preset
    budget differs (`Budget.per_model_for`)."""

    train: TrainSettings
    search: SearchSettings
    by_model: Mapping[str, tuple[TrainSettings, SearchSettings]] = field(default_factory=dict)


def settings_of(values: Mapping[str, Any], given: Iterable[str] = ()
                ) -> tuple[TrainSettings, SearchSettings]:
    """(TrainSettings, SearchSettings) of resolved ``values``; ValueError, one line, for values
    that cannot train together (``given``: the names given, which the error tells apart)."""
    from ..training import TrainSettings

    search = SearchSettings(**built(SEARCH, values))
    if search.mode == "refined" and search.n_start > search.n_max:
        whence = "" if "n_max" in given else " (max steps x batch size)"
        raise ValueError(f"--n-start {search.n_start} exceeds --n-max {search.n_max}{whence}: "
                         "the refined search starts at or below the largest N probed")
    return TrainSettings(**built(TRAINING, values)), search


def campaign_settings(given: Mapping[str, Any], preset: str,
                      models: Iterable[ModelSource | str]) -> CampaignSettings:
    """The settings of a campaign over ``models`` (the sources the plan looked up, or names)
    under ``preset``, with the values ``given`` ({setting: value}) winning over the preset's
    and each model's own.

    The models the preset has always set apart are resolved too (in or out of this campaign,
    so that a published folder's protocol does not depend on which of them a launch names)."""
    def settings(own=None):
        return settings_of(resolve((*TRAINING, *SEARCH), preset, given, own), given)

    train, search = settings()
    by_model = {}
    for model, own in BUDGETS[preset].per_model_for(models).items():
        mine = settings(own)
        if mine[0] != train:
            by_model[model] = mine
    return CampaignSettings(train, search, by_model)
