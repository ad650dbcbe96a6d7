"""The length-generalisation check: the best run at size N, scored with the task's own metrics
on the validation set (the training lengths) and on every longer test split."""

from __future__ import annotations

import json
import warnings
from datetime import datetime, timezone
from pathlib import Path

from ..data import TokenMap
from ..results import LengthGenRow, checkpoint_name, run_key
from ..tasks import Examples, TaskCell, generate
from ..tasks.sampling import generate_lengths
from .best_run import best_model, finite_or_none, scores
from .checkpoints import keep_checkpoint
from .lengths import LengthRange, chosen_lengths, span
from .probe import JournalProbe


def scored_splits(cell: TaskCell, test_lengths: LengthRange | None, seed: int
                ) -> dict[str, Examples]:
    """The rows a check scores past the validation set: the cell's own test splits, or one
    "test" split at ``test_lengths``."""
    if test_lengths is None:
        return {split: generate(cell, split, None, seed) for split in cell.test_splits}
    return {"test": generate_lengths(cell, test_lengths.lengths(cell), None, seed)}


def lengthgen_check(probe: JournalProbe, n: int, protocol_hash: str,
                    keep_in: Path | None = None,
                    test_lengths: LengthRange | None = None) -> LengthGenRow:
    """Train the grid at ``n`` (journaled), retrain its best run, score every split but train
    (or, with ``test_lengths``, the validation set and one test split at those lengths; the
    row's key then names them); a check already recorded is returned as it is.

    With ``keep_in`` (a results folder's ``checkpoints/``), the best run is also kept there
    (`keep_checkpoint`); a recorded check whose checkpoint is missing retrains its run (the
    same model: deterministic) to keep it, and its row stays as recorded.
    """
    job = probe.job
    cell = job.cell
    fields, folder, device = probe.key_fields, probe.folder, probe.settings.device
    key = run_key(kind="lengthgen", n=int(n), **chosen_lengths(cell, test_lengths), **fields)
    kept = None if keep_in is None else Path(keep_in) / checkpoint_name(job.model, str(cell), n)
    if (row := folder.find(LengthGenRow, key)) is not None:
        if kept is not None and not kept.exists():
            result, model = best_model(probe, n)
            if finite_or_none(result.best_val_loss) != row.val_loss:
                # Deterministic in principle; another torch, thread count or device can move
                # the last bits. Say so: the kept model is not bitwise the one scored.
                warnings.warn(f"{row.model} {row.config}: the retrained run's validation loss "
                              f"{result.best_val_loss!r} differs from the recorded "
                              f"{row.val_loss!r}; the checkpoint kept is the retrained one",
                              stacklevel=2)
            _keep(model, cell, kept, row, result.best_val_loss, probe.tokens)
        return row
    result, model = best_model(probe, n)
    splits = {"validation": generate(cell, "validation", None, job.data_seed,
                                     probe.settings.validation),
              **scored_splits(cell, test_lengths, job.data_seed)}
    results = {split: {"lengths": span(sorted(set(ex.lengths.tolist()))),
                       **scores(cell, model, ex, probe.tokens, device)}
               for split, ex in splits.items()}
    row = LengthGenRow(
        key=key, dataset=cell.dataset, config=str(cell), model=job.model,
        model_config_hash=fields["model_config_hash"], n=int(n), lr=float(result.lr),
        seed=int(result.seed), steps=int(result.steps),
        val_loss=finite_or_none(result.best_val_loss), results=json.dumps(results),
        protocol_hash=protocol_hash,
        finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    folder.append(row)
    if kept is not None:
        _keep(model, cell, kept, row, result.best_val_loss, probe.tokens)
    return row


def _keep(model, cell, path: Path, row: LengthGenRow, val_loss: float,
          tokens: TokenMap) -> None:
    keep_checkpoint(model, cell, path, {
        "model": row.model, "dataset": row.dataset, "config": row.config, "n": row.n,
        "lr": row.lr, "seed": row.seed, "steps": row.steps, "lengthgen": row.key,
        "val_loss": finite_or_none(val_loss)}, tokens)
