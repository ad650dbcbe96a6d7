"""Upload a folder as ONE commit, retrying transient failures without ever half-writing.

A Hub commit is atomic: either the commit POST lands and the branch moves, or it does not.
What can go wrong is the answer: a dropped connection after the server made the commit.
huggingface_hub retries the preupload and LFS calls itself but not the commit POST, so
after any failure we read the head again and push on top of it with ``parent_commit``.
If the lost commit had landed, every file is now unchanged, huggingface_hub skips them
all and makes no commit: the retry is a no-op. A push of unchanged files is a no-op too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from huggingface_hub import HfApi, get_token
from huggingface_hub.errors import RepositoryNotFoundError

from .errors import HubError, describe, is_transient

T = TypeVar("T")


@dataclass(frozen=True)
class PushResult:
    """Where a push left the repo: ``commit`` is the head after it, ``changed`` whether it moved."""

    repo_id: str
    repo_type: str
    commit: str
    previous: str | None
    attempts: int

    @property
    def changed(self) -> bool:
        return self.commit != self.previous


def hub_api(token: str | None) -> HfApi:
    """An HfApi with a token, from the argument, HF_TOKEN or the saved login; else HubError."""
    token = token or get_token()
    if not token:
        raise HubError(
            "no Hugging Face token: set HF_TOKEN or run `hf auth login` (a write token is needed)"
        )
    return HfApi(token=token)


def _retrying(call: Callable[[], T], *, attempts: int, backoff_s: float, what: str,
              repo_id: str, repo_type: str, on_retry: Callable[[], None] | None = None) -> T:
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except Exception as error:  # noqa: BLE001 - sorted into transient / fatal below
            if not is_transient(error):
                raise HubError(describe(error, repo_id, repo_type)) from error
            if attempt == attempts:
                reason = describe(error, repo_id, repo_type)
                raise HubError(f"{what} failed after {attempts} attempt(s): {reason}") from error
            time.sleep(backoff_s * 2 ** (attempt - 1))
            if on_retry is not None:
                on_retry()
    raise AssertionError("unreachable")


def upload_folder_once(
    folder: str | Path,
    repo_id: str,
    *,
    repo_type: str,
    token: str | None = None,
    create: bool = False,
    private: bool | None = None,
    commit_message: str = "Upload",
    allow_patterns: list[str] | None = None,
    ignore_patterns: list[str] | None = None,
    delete_patterns: list[str] | None = None,
    max_retries: int = 4,
    backoff_s: float = 1.0,
) -> PushResult:
    """Upload ``folder`` to ``repo_id`` in a single commit; see the module docstring.

    ``delete_patterns``: remote files that match and are not in the folder are deleted in
    the same commit (``["*"]``: the repo mirrors the folder; ``.gitattributes`` stays).

    ``max_retries`` is how many times a transient failure is retried (so at most
    ``max_retries + 1`` commit attempts). Raises HubError (one line) on a missing token, a
    missing repo (unless ``create``), 401/403, or a failure that outlasts the retries;
    the repo then stays at the commit it had.
    """
    api = hub_api(token)
    attempts = max_retries + 1
    common = dict(attempts=attempts, backoff_s=backoff_s, repo_id=repo_id, repo_type=repo_type)

    def head() -> str | None:
        try:
            return api.repo_info(repo_id, repo_type=repo_type).sha
        except RepositoryNotFoundError:
            if not create:
                raise
            api.create_repo(repo_id, repo_type=repo_type, private=private, exist_ok=True)
            return api.repo_info(repo_id, repo_type=repo_type).sha

    previous = _retrying(head, what="reading the repo head", **common)
    state: dict[str, Any] = {"parent": previous, "attempts": 0}

    def refresh_head() -> None:
        state["parent"] = _retrying(head, what="reading the repo head", **common)

    def commit() -> str:
        state["attempts"] += 1
        info = api.upload_folder(
            repo_id=repo_id,
            repo_type=repo_type,
            folder_path=folder,
            commit_message=commit_message,
            parent_commit=state["parent"],
            allow_patterns=allow_patterns,
            ignore_patterns=ignore_patterns,
            delete_patterns=delete_patterns,
        )
        return info.oid

    sha = _retrying(commit, what=f"uploading {folder}", on_retry=refresh_head, **common)
    return PushResult(repo_id, repo_type, sha, previous, state["attempts"])
