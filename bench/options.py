"""What the command line tells the sections: one frozen value handed to each ``run``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class BenchOptions:
    """``quick``: smaller sizes, under 5 minutes for every section. ``cells`` keeps the cells
    (early_decisions) or models (architecture_steps, delta_rule_chunked_vs_recurrent) whose
    dataset/config/model holds one of these parts. The rest are read by early_decisions
    only: ``curves`` is where the searches without the rule write every run's evaluations;
    ``record`` trains each search once, every run to its end, into this file; ``replay``
    decides the searches from such a recording without training; ``forecast`` holds the
    replayed forecast rule's parameters (empty: the rule's own); ``results`` are the folders
    warm_start replays."""

    quick: bool = False
    cells: tuple[str, ...] | None = None
    curves: Path | None = None
    record: Path | None = None
    replay: Path | None = None
    forecast: dict = field(default_factory=dict)
    # warm_start: the results folders to replay (empty: every published one).
    results: tuple[Path, ...] = ()
