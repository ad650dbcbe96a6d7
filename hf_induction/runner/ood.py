"""The out-of-distribution check of a word problem: the best run at a large size, tested at
length 2L."""

from __future__ import annotations

from datetime import datetime, timezone

from ..results import OodRow, run_key
from ..tasks import generate
from .best_run import best_model, finite_or_none, scores
from .probe import JournalProbe


def ood_check(probe: JournalProbe, n: int, protocol_hash: str) -> OodRow:
    """Train the grid at ``n`` (journaled, so resumable), retrain its best run, test at 2L."""
    job = probe.job
    fields, folder, device = probe.key_fields, probe.folder, probe.settings.device
    key = run_key(kind="ood", n=int(n), **fields)
    if (row := folder.find(OodRow, key)) is not None:
        return row
    result, model = best_model(probe, n)
    test = generate(job.cell, "test", None, job.data_seed)
    metrics = scores(job.cell, model, test, probe.tokens, device)
    row = OodRow(
        key=key, dataset=job.cell.dataset, config=str(job.cell), model=job.model,
        model_config_hash=fields["model_config_hash"], n=int(n), lr=float(result.lr),
        seed=int(result.seed), steps=int(result.steps),
        val_loss=finite_or_none(result.best_val_loss),
        test_length=job.cell.test_length, protocol_hash=protocol_hash,
        finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), **metrics,
    )
    folder.append(row)
    return row
