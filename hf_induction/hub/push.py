"""Push a results folder as a dataset repo, and a trained model as a model repo with its card.

Both are one commit per push (see ``commit.py``): a failed push leaves the repo at its
previous commit, and pushing unchanged files makes no commit. Nothing local is written.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..results.folder import SET_ASIDE
from ..results.protocol import is_results_folder, not_a_results_folder
from .cards import write_eval_results, write_model_card
from .commit import PushResult, upload_folder_once
from .errors import HubError

# Files a results folder may hold that are not results: atomic-write leftovers, caches.
# Temporary files (and a kept checkpoint's folder still being written), and the locks and
# claims that coordinate writers, and what a repair set aside: not results. Kept checkpoints
# (checkpoints/) travel.
RESULTS_IGNORE = [".*.tmp", "**/.*.tmp", "**/.*.tmp/**", ".cache/**", "**/__pycache__/**",
                  ".git/**", "*.lock", "**/*.lock", ".locks/**", "claims/**", f"{SET_ASIDE}/**"]


def push_results(
    folder: str | Path,
    repo_id: str,
    token: str | None = None,
    *,
    max_retries: int = 4,
    create: bool = False,
    private: bool | None = None,
    commit_message: str | None = None,
    backoff_s: float = 1.0,
) -> PushResult:
    """Upload the results folder ``folder`` to the dataset repo ``repo_id`` in one commit.

    ``load_dataset(repo_id, "nstar" | "kappa" | "journal")`` then reads what
    ``load_dataset(folder, ...)`` reads: the repo mirrors the folder, so a file gone from the
    folder (a rank file of an earlier, wider launch) is deleted in the same commit. ``create``
    makes the repo if it does not exist; otherwise a missing repo is an error. Raises
    HubError with a one-line message.
    """
    folder = Path(folder)
    if not is_results_folder(folder):
        raise HubError(not_a_results_folder(folder))
    return upload_folder_once(
        folder,
        repo_id,
        repo_type="dataset",
        token=token,
        create=create,
        private=private,
        commit_message=commit_message or f"Results from {folder.name}",
        ignore_patterns=RESULTS_IGNORE,
        delete_patterns=["*"],
        max_retries=max_retries,
        backoff_s=backoff_s,
    )


def push_checkpoint(
    model: Any,
    tokenizer: Any,
    repo_id: str,
    card_fields: Mapping[str, Any],
    token: str | None = None,
    *,
    max_retries: int = 4,
    create: bool = True,
    private: bool | None = None,
    commit_message: str | None = None,
    template_path: str | Path | None = None,
    backoff_s: float = 1.0,
) -> PushResult:
    """Push a trained model as a model repo: safetensors weights, config (with ``auto_map`` and
    the modelling code for our own models), tokenizer, README from the card template.

    ``card_fields`` is what ``cards.checkpoint_card`` takes (task, config, model, N, lr,
    seed, steps, validation loss, ...). The repo is created if needed (``create``).
    ``AutoModelForCausalLM.from_pretrained(repo_id, trust_remote_code=True)`` loads it.
    """
    with tempfile.TemporaryDirectory(prefix="hf-induction-checkpoint-") as tmp:
        staging = Path(tmp)
        # save_pretrained writes config.json (+ auto_map and the code files of classes
        # registered with register_for_auto_class) and model.safetensors, on any rank.
        from ..models.build import save_model

        try:
            save_model(model, staging)
        except RuntimeError as e:
            raise HubError(f"{e} (for {repo_id})") from None
        if tokenizer is not None:
            tokenizer.save_pretrained(staging)
        write_model_card(staging, repo_id, card_fields, model_config=model.config,
                         template_path=template_path)
        write_eval_results(staging, card_fields)
        return upload_folder_once(
            staging,
            repo_id,
            repo_type="model",
            token=token,
            create=create,
            private=private,
            commit_message=commit_message or f"Checkpoint {card_fields.get('config', '')}".strip(),
            max_retries=max_retries,
            backoff_s=backoff_s,
        )
