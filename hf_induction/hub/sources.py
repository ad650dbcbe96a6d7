"""What the leaderboard shows beside each κ row of a results source (a folder or a Hub
dataset id): the protocol the source was made under, and the checkpoints it pushed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# protocol_summary is the results package's: the Space imports it from here with the rest.
from ..results.protocol import protocol_summary  # noqa: F401
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


def checkpoint_repos(source: str | Path) -> dict[tuple[str, str, str], str]:
    """(dataset, config, model) -> the model repo a search of that cell pushed, if any."""
    pushed = {row["search"]: row["repo_id"] for row in load_table(source, "pushes")}
    return {(row["dataset"], row["config"], row["model"]): pushed[row["key"]]
            for row in load_table(source, "nstar") if row["key"] in pushed}
