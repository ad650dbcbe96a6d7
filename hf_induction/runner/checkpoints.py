"""Push the winning run of a search (at N*, or of every succeeding probe) as a model repo,
and keep a check's best run in the results folder (``--keep-checkpoints``)."""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..data import TokenMap
from ..models.build import save_model
from ..results import NstarRow, checkpoint_name
from ..results.checkpoints import TRAINED_ON
from ..tasks import hub_dataset_id
from ..tasks.tokenizer import build_tokenizer
from ..training import train_model
from .probe import JournalProbe


def checkpoint_repo_id(prefix: str, row: NstarRow, n: int) -> str:
    """``ORG/NAME-model-config-nN``: one repo per (model, cell, N), a Hub-valid name; the
    part after the prefix is the folder name a kept checkpoint has."""
    return f"{prefix}-{checkpoint_name(row.model, row.config, n)}"


def tokenizer_of(cell, tokens: TokenMap | None):
    """The tokenizer a trained model is saved with: a pretrained model's own (``tokens``
    carries it), else the cell's."""
    return build_tokenizer(cell) if tokens is None or tokens.tokenizer is None \
        else tokens.tokenizer


def keep_checkpoint(model, cell, path: Path, trained_on: Mapping[str, Any],
                    tokens: TokenMap | None = None) -> Path:
    """Save ``model`` (``save_pretrained``: weights, config, and the code of a model of ours)
    with its tokenizer (`tokenizer_of`) and the `TRAINED_ON` record at ``path``, atomically:
    everything is written into a hidden folder beside it, which is then renamed, so a crash
    leaves no half checkpoint (a push leaves the hidden folder out). A folder already there is
    kept. A pretrained model's record also lists the id of each task token (``token_ids``, in
    the layout's order: symbols, BOS, SEP, EOS, PAD)."""
    if tokens is not None and tokens.tokenizer is not None:
        trained_on = {**trained_on, "token_ids": list(tokens.ids)}
    path = Path(path)
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    # What an earlier write of this checkpoint left when it was killed.
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        shutil.rmtree(stale, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        save_model(model, staging)
        tokenizer_of(cell, tokens).save_pretrained(staging)
        (staging / TRAINED_ON).write_text(json.dumps(dict(trained_on), indent=1) + "\n",
                                          encoding="utf-8")
        os.replace(staging, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return path


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
        push_checkpoint(model.cpu(), tokenizer_of(probe.job.cell, probe.tokens), repo_id,
                        fields)
        on_pushed(repo_id)
        pushed.append(repo_id)
    return pushed
