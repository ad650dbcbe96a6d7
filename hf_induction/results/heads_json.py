"""``heads.json``: a results folder's heads and patching rows, nested for a reader who wants one
checkpoint's matrices rather than rows. It is made from the tables (the one source) and
rewritten whole, atomically, each time ``hf-induction heads`` records rows::

    {checkpoint: {"model", "trained_on", "configs": {config: {
        "dataset", "n_prompts", "n_positions", "seed", "layers", "heads",
        "scores": {score: [[layer 0's heads], [layer 1's], ...]},
        "patching": {kind: [{"layer", "head", "rank", "delta_ce", ...}, ...]}}}}}

``patching`` lists each kind's heads by rank (1: the largest rise in loss) and is absent
where the config was not patched. Where a config was scored more than once (other
``--prompts`` or ``--seed``), the rows recorded last win.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .jsonl import atomic_write_text, clean
from .render import HEAD_SCORE_COLUMNS
from .rows import HeadsRow, PatchingRow

HEADS_JSON = "heads.json"
# The patching fields a nested entry keeps (the rest name the row's checkpoint and config).
PATCHING_FIELDS = ("layer", "head", "rank", "ce", "exact_match", "base_ce", "base_exact_match",
                   "delta_ce", "delta_exact_match", "n_edges")


def heads_json(heads: Iterable[HeadsRow], patching: Iterable[PatchingRow] = ()
               ) -> dict[str, Any]:
    """The nested mapping of the module docstring."""
    out: dict[str, Any] = {}
    cells: dict[tuple[str, str], dict[tuple[int, int], HeadsRow]] = {}
    for r in heads:
        entry = out.setdefault(r.checkpoint, {"model": r.model, "trained_on": r.trained_on,
                                              "configs": {}})
        entry["configs"][r.config] = {"dataset": r.dataset, "n_prompts": r.n_prompts,
                                      "n_positions": r.n_positions, "seed": r.seed}
        cells.setdefault((r.checkpoint, r.config), {})[(r.layer, r.head)] = r
    for (checkpoint, config), by_head in cells.items():
        layers = 1 + max(layer for layer, _ in by_head)
        width = 1 + max(head for _, head in by_head)
        config_entry = out[checkpoint]["configs"][config]
        config_entry.update(layers=layers, heads=width, scores={
            score: [[getattr(by_head[(layer, h)], score) if (layer, h) in by_head else None
                     for h in range(width)] for layer in range(layers)]
            for score in HEAD_SCORE_COLUMNS})
    patched: dict[tuple[str, str, str], dict[tuple[int, int], PatchingRow]] = {}
    for r in patching:
        patched.setdefault((r.checkpoint, r.config, r.kind), {})[(r.layer, r.head)] = r
    for (checkpoint, config, kind), by_head in sorted(patched.items()):
        config_entry = out.get(checkpoint, {}).get("configs", {}).get(config)
        if config_entry is None:
            continue
        ranked = sorted(by_head.values(), key=lambda r: r.rank)
        config_entry.setdefault("patching", {})[kind] = [
            {name: getattr(r, name) for name in PATCHING_FIELDS} for r in ranked]
    return out


def write_heads_json(folder) -> Path:
    """Write ``heads.json`` of a `ResultsFolder` from its tables; returns its path."""
    path = Path(folder.path) / HEADS_JSON
    text = json.dumps(clean(heads_json(folder.read(HeadsRow), folder.read(PatchingRow))),
                      indent=1, allow_nan=False)
    atomic_write_text(path, text + "\n")
    return path
