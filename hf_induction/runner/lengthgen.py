"""The length-generalisation check: the best run at size N, scored with the task's own metrics
on the validation set (the training lengths) and on every longer test split."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from ..results import LengthGenRow, run_key
from ..tasks import generate
from .best_run import best_model, finite_or_none, predict
from .probe import JournalProbe


def lengthgen_check(probe: JournalProbe, n: int, protocol_hash: str) -> LengthGenRow:
    """Train the grid at ``n`` (journaled), retrain its best run, score every split but train;
    a check already recorded is returned as it is."""
    job = probe.job
    cell = job.cell
    fields, folder, device = probe.key_fields, probe.folder, probe.settings.device
    key = run_key(kind="lengthgen", n=int(n), **fields)
    if (row := folder.find_lengthgen(key)) is not None:
        return row
    result, model = best_model(probe, n)
    results = {}
    for split in ("validation", *cell.test_splits):
        ex = generate(cell, split, None, job.data_seed)
        lengths = sorted(set(ex.lengths.tolist()))
        results[split] = {
            "lengths": f"{lengths[0]}..{lengths[-1]}" if len(lengths) > 1 else str(lengths[0]),
            **cell.metrics(predict(model, ex.input_ids, device), ex.labels),
        }
    row = LengthGenRow(
        key=key, dataset=cell.dataset, config=str(cell), model=job.model,
        model_config_hash=fields["model_config_hash"], n=int(n), lr=float(result.lr),
        seed=int(result.seed), steps=int(result.steps),
        val_loss=finite_or_none(result.best_val_loss), results=json.dumps(results),
        protocol_hash=protocol_hash,
        finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    folder.append_lengthgen(row)
    return row
