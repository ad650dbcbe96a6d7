"""The training and search settings a campaign runs under, resolved once from the values given
(flags, recipe, sweep budget), the preset, and each model's own budget under it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..search import SearchSettings
from ..settings import LAUNCH, SEARCH, TRAINING, built, check_fields, defaults, resolve
from .budgets import BUDGETS

if TYPE_CHECKING:
    from ..models.source import ModelSource
    from ..training import TrainSettings


# Each field's default is its declaration's (`settings.declared.LAUNCH`).
LAUNCH_DEFAULTS = defaults(LAUNCH)


@dataclass(frozen=True)
class LaunchOptions:
    """How one launch runs, as against what it computes (`TrainSettings`, `SearchSettings`):
    none of it is in the protocol, so a folder's hash never depends on it. Each field is a
    setting declared in `settings.declared.LAUNCH`, its flag, default and bound read there.

    Args:
        force: write into a folder recorded under another protocol.
        reach: score each OOD check's best run at 2L .. 1,000L (`reach.reach_check`); it
            trains nothing the check does not.
        keep_checkpoints: keep each length-generalisation check's best run in
            OUT/checkpoints/ (a retrained copy of the model the check scored).
        threads: torch threads per process on the CPU (None: 1).
        schedule: which process takes which job (`schedule.SCHEDULES`).
        warm_start: start each refined search from its nearest solved neighbour's N* in the
            folder (neighbours.py): under outcomes monotone in N the same N* from fewer probes.
        progress: progress bars.
        report_to: experiment trackers (`tracking.REPORT_TO`).
        logging_dir: where TensorBoard and wandb write (None: OUT/runs).
        push_to_hub: the Hub dataset repo the folder is pushed to when done (None: none).
        push_checkpoints: with ``push_to_hub``, the winning run at N* (``"nstar"``) or of
            every succeeding probe (``"probes"``) is retrained and pushed as a model repo
            after each search (None: none).
    """

    force: bool = LAUNCH_DEFAULTS["force"]
    reach: bool = LAUNCH_DEFAULTS["reach"]
    keep_checkpoints: bool = LAUNCH_DEFAULTS["keep_checkpoints"]
    threads: int | None = LAUNCH_DEFAULTS["threads"]
    schedule: str = LAUNCH_DEFAULTS["schedule"]
    warm_start: bool = LAUNCH_DEFAULTS["warm_start"]
    progress: bool = LAUNCH_DEFAULTS["progress"]
    report_to: tuple[str, ...] = LAUNCH_DEFAULTS["report_to"]
    logging_dir: Path | None = LAUNCH_DEFAULTS["logging_dir"]
    push_to_hub: str | None = LAUNCH_DEFAULTS["push_to_hub"]
    push_checkpoints: str | None = LAUNCH_DEFAULTS["push_checkpoints"]

    def __post_init__(self) -> None:
        check_fields(LAUNCH, self)

    @property
    def checkpoint_prefix(self) -> str | None:
        """The model repos' prefix where checkpoints are pushed (ORG/REPO), else None."""
        return self.push_to_hub if self.push_checkpoints else None

    @property
    def checkpoints_of(self) -> str:
        """Which runs' checkpoints are pushed: ``"nstar"`` or ``"probes"``."""
        return self.push_checkpoints or "nstar"


def launch_options(given: Mapping[str, Any]) -> LaunchOptions:
    """The `LaunchOptions` of the values ``given`` ({setting: value}), the rest at their
    defaults."""
    return LaunchOptions(**built(LAUNCH, resolve(LAUNCH, "paper", given)))


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
