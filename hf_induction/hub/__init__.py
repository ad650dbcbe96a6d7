"""The Hub: push results and checkpoints, checkpoint cards from package templates, κ leaderboards.

    push_results(folder, "org/results")              # a results folder -> a dataset repo
    push_checkpoint(model, tokenizer, "org/ckpt", card_fields)   # -> a model repo + card
    write_leaderboard(["org/results", folder], out)  # leaderboard.md + PNG figures

Every push is one commit, retried on transient failures, never half-written; failures
raise HubError with a one-line message. ``hf_induction.hub.plots`` (matplotlib) and the
Space app (``hf_induction/templates/space/app.py``, gradio) are imported only where used.
"""

from .cards import checkpoint_card, eval_result_entries
from .commit import PushResult, upload_folder_once
from .entries import Entry, leaderboard_entries
from .errors import HubError, describe, is_transient
from .leaderboard import (
    load_kappa,
    load_leaderboard,
    load_nstar,
    render_markdown,
    write_leaderboard,
)
from .push import push_checkpoint, push_results

__all__ = [
    "Entry",
    "HubError",
    "PushResult",
    "checkpoint_card",
    "describe",
    "eval_result_entries",
    "is_transient",
    "leaderboard_entries",
    "load_kappa",
    "load_leaderboard",
    "load_nstar",
    "push_checkpoint",
    "push_results",
    "render_markdown",
    "upload_folder_once",
    "write_leaderboard",
]
