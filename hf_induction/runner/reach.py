"""How far a word problem's OOD check carries: its best run scored at 2L, 4L, 10L, 100L and
1,000L, where the OOD check scores 2L alone.

Each length is one pass over `REACH_ROWS` rows of that length (the test stream's, so the rows
at 2L are the first of the OOD check's test split), in forwards of as many rows as the
memory bound allows (`eval_rows`). A model with learned absolute positions is scored only at
the lengths its positions hold; a longer length gets a row marked unscored, not a score
from positions it never learned (or an index error).
"""

from __future__ import annotations

from datetime import datetime, timezone

from ..models.positions import absolute_positions
from ..results import ReachRow, run_key
from ..results.reach import REACH_FACTORS
from ..tasks import TaskCell
from ..tasks.sampling import generate_lengths
from .best_run import best_model, finite_or_none, scores
from .memory import machine_memory
from .probe import JournalProbe

# Rows per length: the normalised final-state accuracy within about ±0.045 (two standard
# errors at its worst, 0.5).
REACH_ROWS = 500
# Values an evaluation forward holds at once per token, layer and hidden unit (a floor with
# room: no gradient is kept), and the share of the memory bound the forwards may take.
EVAL_VALUES = 8
EVAL_SHARE = 4
EVAL_ROWS_MAX = 256


def reach_lengths(cell: TaskCell) -> tuple[int, ...]:
    """The lengths a reach check scores: `REACH_FACTORS` times L."""
    return tuple(f * cell.max_len for f in REACH_FACTORS)


def eval_row_bytes(config, tokens: int) -> int:
    """Bytes one row of ``tokens`` tokens takes in an evaluation forward, at least: its
    activations and logits in float32, and, for attention, one layer's T x T scores per
    head (eager attention holds them)."""
    hidden = int(getattr(config, "hidden_size", 0) or 0)
    layers = int(getattr(config, "num_hidden_layers", 1) or 1)
    vocab = int(getattr(config, "vocab_size", 1) or 1)
    heads = int(getattr(config, "num_attention_heads", 0) or 0)
    return 4 * tokens * (EVAL_VALUES * hidden * layers + vocab) + 4 * heads * tokens * tokens


def eval_rows(config, tokens: int, memory: int) -> int:
    """Rows per forward: as many as `EVAL_SHARE`-th of ``memory`` bytes holds, at most
    `EVAL_ROWS_MAX`, at least one (a single row that cannot fit is the machine's limit, and
    the forward says so)."""
    return max(1, min(EVAL_ROWS_MAX, memory // EVAL_SHARE // eval_row_bytes(config, tokens)))


def reach_key(fields: dict, n: int, length: int, rows: int = REACH_ROWS) -> str:
    """The key of a reach row: the job's fields, the size, the length and the rows asked."""
    return run_key(kind="reach", n=int(n), length=int(length), rows=int(rows), **fields)


def reach_check(probe: JournalProbe, n: int, protocol_hash: str,
                rows: int = REACH_ROWS, on_length=None) -> list[ReachRow]:
    """Score the best run at size ``n`` (the OOD check's: kept, or trained again) at each of
    `reach_lengths`; lengths already recorded are answered from the folder, so a rerun
    resumes. ``on_length(row)`` is called as each length is scored. NotReproduced (nothing
    written) where the run trained again is not the one the grid recorded: its reach would
    be another model's."""
    job = probe.job
    cell = job.cell
    fields, folder, device = probe.key_fields, probe.folder, probe.settings.device
    keys = {length: reach_key(fields, n, length, rows) for length in reach_lengths(cell)}
    held = {length: folder.find(ReachRow, key) for length, key in keys.items()}
    if all(row is not None for row in held.values()):
        return list(held.values())
    result, model = best_model(probe, n, reproduce=True)
    positions = absolute_positions(model)
    memory = machine_memory(device).size
    chance = 1.0 / cell.alphabet_size
    out = []
    for factor, (length, key) in zip(REACH_FACTORS, keys.items(), strict=True):
        if (row := held[length]) is None:
            tokens = cell.token_length(length)
            scored = positions is None or tokens <= positions
            metrics = dict.fromkeys(("state_accuracy", "final_state_accuracy",
                                     "normalised_state_accuracy",
                                     "normalised_final_state_accuracy"))
            held_rows = 0
            if scored:
                # At most the pool: a short length may hold fewer distinct words.
                examples = generate_lengths(cell, (length,), rows, job.data_seed)
                held_rows = len(examples)
                metrics = scores(cell, model, examples, probe.tokens, device,
                                 chunk=eval_rows(model.config, tokens, memory))
            row = ReachRow(
                key=key, dataset=cell.dataset, config=str(cell), model=job.model,
                model_config_hash=fields["model_config_hash"], n=int(n), lr=float(result.lr),
                seed=int(result.seed), steps=int(result.steps),
                val_loss=finite_or_none(result.best_val_loss), length=length, factor=factor,
                rows=held_rows, scored=scored, chance=chance, protocol_hash=protocol_hash,
                finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                **{k: None if v is None else float(v) for k, v in metrics.items()
                   if k in ReachRow.__dataclass_fields__})
            folder.append(row)
            if on_length is not None:
                on_length(row)
        out.append(row)
    return out

