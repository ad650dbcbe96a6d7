"""What the leaderboard shows beside each κ row of a results source (a folder or a Hub
dataset id): the protocol the source was made under, and the checkpoints it pushed."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

# protocol_summary is the results package's: the Space imports it from here with the rest.
from ..results.protocol import (
    PROTOCOL_FILE,
    is_results_folder,
    not_a_results_folder,
    protocol_summary,  # noqa: F401
)
from .errors import NETWORK_ERRORS, HubError, describe_read
from .leaderboard import load_table

# A Hub dataset id as a source: ORG/NAME, nothing more (a bare name is a mistyped folder).
HUB_DATASET_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


def results_source(text: str) -> str:
    """An argparse ``type=``: a results folder, or, where no such path exists, a Hub dataset
    id ORG/NAME; anything else is a usage error naming the path and what each one is."""
    if Path(text).exists() or not HUB_DATASET_ID.fullmatch(text):
        if not is_results_folder(text):
            raise argparse.ArgumentTypeError(
                f"{not_a_results_folder(text)}; a Hub dataset id is ORG/NAME")
    return text


def load_protocol(source: str | Path) -> dict[str, Any]:
    """``protocol.json`` of a results folder or dataset repo; {} where it has none."""
    path = Path(source) / PROTOCOL_FILE
    if not path.exists() and not Path(source).exists():
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError

        try:
            path = Path(hf_hub_download(str(source), PROTOCOL_FILE, repo_type="dataset"))
        except EntryNotFoundError:
            return {}
        except (HfHubHTTPError, *NETWORK_ERRORS) as e:
            raise HubError(describe_read(e, str(source))) from None
    return json.loads(path.read_text()) if path.exists() else {}


def checkpoint_repos(source: str | Path) -> dict[tuple[str, str, str], str]:
    """(dataset, config, model) -> the model repo a search of that cell pushed, if any."""
    pushed = {row["search"]: row["repo_id"] for row in load_table(source, "pushes")}
    return {(row["dataset"], row["config"], row["model"]): pushed[row["key"]]
            for row in load_table(source, "nstar") if row["key"] in pushed}
