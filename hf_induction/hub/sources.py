"""What the leaderboard shows beside each κ row of a results source (a folder or a Hub
dataset id): the protocol the source was made under, and the checkpoints it pushed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..results.protocol import model_protocol
from .leaderboard import load_table

PROTOCOL_FILE = "protocol.json"


def load_protocol(source: str | Path) -> dict[str, Any]:
    """``protocol.json`` of a results folder or dataset repo; {} where it has none."""
    path = Path(source) / PROTOCOL_FILE
    if not path.exists() and not Path(source).exists():
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import EntryNotFoundError

        try:
            path = Path(hf_hub_download(str(source), PROTOCOL_FILE, repo_type="dataset"))
        except EntryNotFoundError:
            return {}
    return json.loads(path.read_text()) if path.exists() else {}


def protocol_summary(protocol: dict[str, Any], model: str | None = None) -> str:
    """One line: steps, grid, ε, search, early failure; "?" where the protocol is unknown.
    With a model: that model's, where its preset gave it settings of its own."""
    if model is not None:
        protocol = model_protocol(protocol, model)
    train, search = protocol.get("train", {}), protocol.get("search", {})
    if not train:
        return "?"
    rule = train.get("early_failure") or (
        {"name": f"patience {train['patience_steps']}"} if train.get("patience_steps") else None)
    parts = [f"{train.get('max_steps', 0):,} steps",
             f"{len(train.get('lrs', []))} lr × {len(train.get('seeds', []))} seeds",
             f"ε {train.get('epsilon', '?'):g}" if "epsilon" in train else "ε ?",
             f"{search.get('mode', '?')} search",
             f"early failure: {rule['name']}" if rule else "every run to its budget"]
    return ", ".join(parts)


def checkpoint_repos(source: str | Path) -> dict[tuple[str, str, str], str]:
    """(dataset, config, model) -> the model repo a search of that cell pushed, if any."""
    pushed = {row["search"]: row["repo_id"] for row in load_table(source, "pushes")}
    return {(row["dataset"], row["config"], row["model"]): pushed[row["key"]]
            for row in load_table(source, "nstar") if row["key"] in pushed}
