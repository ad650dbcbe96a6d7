"""Push the winning run of a search (at N*, or of every succeeding probe) as a model repo."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ..results import NstarRow
from ..tasks import hub_dataset_id
from ..tasks.tokenizer import build_tokenizer
from ..training import train_model
from .probe import JournalProbe


def checkpoint_repo_id(prefix: str, row: NstarRow, n: int) -> str:
    """``ORG/NAME-model-config-nN``: one repo per (model, cell, N), a Hub-valid name."""
    name = f"{prefix}-{row.model}-{row.config}-n{n}"
    return re.sub(r"[^A-Za-z0-9/._-]", "-", name)


def push_winners(probe: JournalProbe, row: NstarRow, repo_prefix: str, which: str,
                 results_repo: str | None = None,
                 pushed_before: Callable[[str], bool] = lambda repo_id: False,
                 on_pushed: Callable[[str], None] = lambda repo_id: None) -> list[str]:
    """Retrain the best run of the chosen probes (deterministic, same seed) and push it;
    the probe carries the job's model factory, training settings (ε among them) and data.

    ``which`` is "nstar" (the probe at N* only) or "probes" (every succeeding probe). A repo
    ``pushed_before`` says is done is skipped; ``on_pushed`` hears each push that landed, so
    that a push that failed is retried by the next run.
    """
    from ..hub import push_checkpoint

    outcomes = [p for p in row.probe_outcomes() if p.success]
    if which == "nstar":
        outcomes = [p for p in outcomes if p.n == row.n_star]
    pushed = []
    for outcome in outcomes:
        repo_id = checkpoint_repo_id(repo_prefix, row, outcome.n)
        if pushed_before(repo_id):
            continue
        best = min((r for r in outcome.runs if r["success"]),
                   key=lambda r: r["best_val_loss"] if r["best_val_loss"] is not None
                   else math.inf)
        result, model = train_model(probe.model_factory, probe.data(outcome.n), outcome.n,
                                    best["lr"], best["seed"], probe.settings)
        fields = {
            "task": row.dataset, "config": row.config, "model": row.model, "n": outcome.n,
            "learning_rate": result.lr, "seed": result.seed, "steps": result.steps,
            "validation_loss": result.best_val_loss, "epsilon": probe.settings.epsilon,
            # The published task dataset the rows are drawn from (the card's `datasets:`).
            "dataset_id": hub_dataset_id(row.dataset),
        }
        if results_repo:
            fields["results_repo"] = results_repo
        push_checkpoint(model.cpu(), build_tokenizer(probe.job.cell), repo_id, fields)
        on_pushed(repo_id)
        pushed.append(repo_id)
    return pushed
