"""What one probe reports: the outcome of training the grid Φ at one training-set size N."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

# A run's ``stop_reason`` when its loss stopped being finite (one of the trainer's
# `training.settings.StopReason`s; the search reads runs as plain dicts and imports no torch).
DIVERGED = "nonfinite"


@dataclass(frozen=True)
class ProbeOutcome:
    """The outcome of one probe: every run of the grid Φ trained on the first ``n`` rows.

    Attributes:
        n: the training-set size probed (an integer ≥ 1).
        success: True when at least one run reached validation loss < ε.
        best_val_loss: the lowest validation loss over all runs (``inf`` when none evaluated).
        steps: training steps spent in this probe, summed over its runs; runs answered
            from the journal count with the steps they originally took.
        wall_s: wall-clock seconds spent in this probe; runs answered from the journal
            count with the time they originally took, as their steps do.
        runs: one plain dict per training run (what the journal holds for it).
    """

    n: int
    success: bool
    best_val_loss: float = math.inf
    steps: int = 0
    wall_s: float = 0.0
    runs: tuple[Mapping[str, Any], ...] = field(default=())

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"a probe's N must be an integer >= 1, got {self.n!r}")
        if self.steps < 0:
            raise ValueError(f"steps must be >= 0, got {self.steps}")
        # A list passed by the caller would make the outcome mutable; keep it a tuple.
        object.__setattr__(self, "runs", tuple(self.runs))

    @property
    def diverged_lrs(self) -> tuple[float, ...]:
        """The learning rates of the runs whose loss went to inf or NaN, each once, sorted."""
        return tuple(sorted({float(r["lr"]) for r in self.runs
                             if r.get("stop_reason") == DIVERGED and "lr" in r}))

    @property
    def all_diverged(self) -> bool:
        """True when every run that trained diverged: the probe then measured the rates, not
        whether N rows suffice. Runs the probe's decision stopped before their first step do
        not count either way."""
        trained = [r for r in self.runs if r.get("steps", 1) > 0]
        return bool(trained) and all(r.get("stop_reason") == DIVERGED for r in trained)

    def to_dict(self) -> dict[str, Any]:
        # The fields in order, each run a plain dict (a journal line's runs are mappings).
        return {**{f.name: getattr(self, f.name) for f in fields(self)},
                "runs": [dict(run) for run in self.runs]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ProbeOutcome:
        loss = data.get("best_val_loss")
        return cls(
            n=int(data["n"]),
            success=bool(data["success"]),
            # Strict JSON stores a non-finite loss as null; read it back as "no finite loss".
            best_val_loss=math.inf if loss is None else float(loss),
            steps=int(data.get("steps", 0)),
            runs=tuple(data.get("runs", ())),
            wall_s=float(data.get("wall_s") or 0.0),
        )


Probe = Callable[[int], ProbeOutcome]
"""A probe trains the grid at training-set size N and says whether N succeeds."""
