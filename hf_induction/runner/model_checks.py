"""The checks a launch runs on its models before anything trains: each model's config can be
had at each cell (and a pretrained tokenizer holds the cell's tokens), and a model from
outside the package keeps the part of the trainer's contract that costs no training."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import first_line

if TYPE_CHECKING:
    from .launch import Plan


def resolve_models(plan: Plan, models) -> None:
    """Each job's model resolved for its cell (`CampaignModels`, which keeps them for the jobs);
    ValueError, one line, for a model whose config cannot be had, or whose tokenizer lacks a
    cell's tokens (a pretrained model)."""
    for job in plan.jobs:
        try:
            models(job.model, job.cell)
        except OSError as e:
            # An hf: or pretrained: path or Hub id with no config there.
            why = first_line(e)
            raise ValueError(f"--model {why}" if why.startswith(job.model)
                             else f"--model {job.model}: {why}") from None


def check_outside_models(plan: Plan, preset: str) -> None:
    """ValueError, one line, for a model from outside the package (an entry point's, a file's
    or a module's spec) that fails the part of the contract a campaign runs before training
    (`contract.BEFORE_TRAINING`: the logits' shape, the labels loss against the trainer's), so
    that it never trains and writes rows; the line names what failed and the whole check."""
    from ..models.registry import SPECS
    from ..models.source import SpecSource
    from ..training.contract import BEFORE_TRAINING, FULL_CHECK, check_model

    for name, source in plan.sources.items():
        if not isinstance(source, SpecSource) or name in SPECS:
            continue
        report = check_model(source, preset, BEFORE_TRAINING)
        if not report.ok:
            failed = "; ".join(f"{c.name}: {c.detail}" for c in report.checks
                               if c.passed is False)
            raise ValueError(f"--model {name} breaks the contract the trainer relies on "
                             f"({failed}); the whole check: {FULL_CHECK.format(name=name)}")
