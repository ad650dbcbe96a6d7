"""What went wrong talking to the Hub, in one line; and which failures are worth a retry."""

from __future__ import annotations

from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled, RepositoryNotFoundError


def _network_errors() -> tuple[type[BaseException], ...]:
    # huggingface_hub 2.x speaks httpx2; 1.x spoke httpx. Either may be installed.
    found: list[type[BaseException]] = [ConnectionError, TimeoutError]
    for module in ("httpx2", "httpx"):
        try:
            found.append(__import__(module).TransportError)
        except (ImportError, AttributeError):
            pass
    return tuple(found)


NETWORK_ERRORS = _network_errors()


class HubError(RuntimeError):
    """A push or pull that failed; ``str()`` is one line meant for a user."""


def status_of(error: BaseException) -> int | None:
    response = getattr(error, "response", None)
    return getattr(response, "status_code", None)


def is_transient(error: BaseException) -> bool:
    """A network failure, a 5xx, a 429, or a commit conflict (409/412: the head moved); never
    HF_HUB_OFFLINE, which no retry changes."""
    if isinstance(error, OfflineModeIsEnabled):
        return False
    if isinstance(error, HfHubHTTPError):
        status = status_of(error)
        return status is not None and (status >= 500 or status in (409, 412, 429))
    return isinstance(error, NETWORK_ERRORS)


def describe(error: BaseException, repo_id: str, repo_type: str = "dataset") -> str:
    """One line saying what failed and what to do about it."""
    what = f"{repo_type} repo {repo_id}"
    status = status_of(error)
    if isinstance(error, RepositoryNotFoundError) or status == 404:
        return f"{what} does not exist (or the token cannot see it); create it or pass --create"
    if status == 401:
        return f"the Hugging Face token was refused (401) for {what}: it is invalid or expired"
    if status == 403:
        return f"the Hugging Face token may not write to {what} (403): use a write token"
    if isinstance(error, HfHubHTTPError):
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return f"the Hub answered {status} for {what}: {first}"
    if isinstance(error, OfflineModeIsEnabled):
        return f"HF_HUB_OFFLINE is set: cannot reach the Hub about {what}; unset it to push"
    if isinstance(error, NETWORK_ERRORS):
        from huggingface_hub import constants

        return (f"network failure talking to the Hub ({constants.ENDPOINT}) about {what}: "
                f"{type(error).__name__}: {error}")
    return f"{type(error).__name__} while pushing to {what}: {error}"


def describe_read(error: BaseException, repo_id: str) -> str:
    """One line saying why the Hub dataset ``repo_id`` could not be read, and what to do."""
    from huggingface_hub import constants

    what = f"cannot read the Hub dataset {repo_id}"
    if isinstance(error, OfflineModeIsEnabled):
        return f"{what}: HF_HUB_OFFLINE is set; unset it, or give a local results folder"
    if isinstance(error, RepositoryNotFoundError) or status_of(error) == 404:
        return f"{what}: no such dataset repo (or the token cannot see it)"
    if isinstance(error, HfHubHTTPError):
        return f"{what}: the Hub answered {status_of(error)}"
    detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return (f"{what}: the Hub at {constants.ENDPOINT} cannot be reached ({detail}); check the "
            "network and HF_ENDPOINT")
