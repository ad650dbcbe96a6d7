"""The best run of a probe, retrained to hand back its model, and its predictions: what the
out-of-distribution and length-generalisation checks score."""

from __future__ import annotations

import numpy as np
import torch

from ..training import RunResult, train_model
from .probe import JournalProbe


@torch.no_grad()
def predict(model: torch.nn.Module, input_ids: np.ndarray, device: str,
            chunk: int = 256) -> np.ndarray:
    """Argmax predictions at every position, [K, T], in chunks (teacher-forced)."""
    model.eval()
    out = []
    for start in range(0, len(input_ids), chunk):
        ids = torch.from_numpy(input_ids[start:start + chunk]).to(device)
        out.append(model(input_ids=ids).logits.argmax(-1).cpu().numpy())
    return np.concatenate(out)


def best_model(probe: JournalProbe, n: int) -> tuple[RunResult, torch.nn.Module]:
    """Train the grid at ``n`` (journaled, so resumable), then retrain its best run on the
    validation set (a success first, else the lowest loss) under the probe's own settings and
    model factory: deterministic, the same model."""
    outcome = probe(n)
    best = min(outcome.runs, key=lambda r: (not r["success"], r["best_val_loss"] is None,
                                            r["best_val_loss"] or 0.0))
    return train_model(probe.model_factory, probe.data(n), n, best["lr"], best["seed"],
                       probe.settings)


def finite_or_none(value: float) -> float | None:
    return value if np.isfinite(value) else None
