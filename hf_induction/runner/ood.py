"""The out-of-distribution check: the best run at a large size, tested at length 2L."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

import numpy as np
import torch

from ..results import OodRow, ResultsFolder, run_key
from ..tasks import generate
from ..training import TrainSettings, train_model
from .probe import JournalProbe


@torch.no_grad()
def predict(model: torch.nn.Module, input_ids: np.ndarray, device: str,
            chunk: int = 256) -> np.ndarray:
    """Argmax predictions at every position, [K, T], in chunks (teacher-forced for cot)."""
    model.eval()
    out = []
    for start in range(0, len(input_ids), chunk):
        ids = torch.from_numpy(input_ids[start:start + chunk]).to(device)
        out.append(model(input_ids=ids).logits.argmax(-1).cpu().numpy())
    return np.concatenate(out)


def ood_check(probe: JournalProbe, n: int, settings: TrainSettings,
              model_factory: Callable[[], torch.nn.Module], folder: ResultsFolder,
              protocol_hash: str) -> OodRow:
    """Train the grid at ``n`` (journaled, so resumable), retrain its best run, test at 2L."""
    job = probe.job
    fields = probe.key_fields
    key = run_key(kind="ood", n=int(n), **fields)
    if (row := folder.find_ood(key)) is not None:
        return row
    outcome = probe(n)
    best = min(outcome.runs, key=lambda r: (not r["success"], r["best_val_loss"] is None,
                                            r["best_val_loss"] or 0.0))
    result, model = train_model(model_factory, probe.data(n), n, best["lr"], best["seed"],
                                settings)
    test = generate(job.cell, "test", None, job.data_seed)
    metrics = job.cell.metrics(predict(model, test.input_ids, settings.device), test.labels)
    row = OodRow(
        key=key, dataset=job.cell.dataset, config=str(job.cell), model=job.model,
        model_config_hash=fields["model_config_hash"], n=int(n), lr=float(result.lr),
        seed=int(result.seed), steps=int(result.steps),
        val_loss=result.best_val_loss if np.isfinite(result.best_val_loss) else None,
        test_length=job.cell.test_length, protocol_hash=protocol_hash,
        finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), **metrics,
    )
    folder.append_ood(row)
    return row
