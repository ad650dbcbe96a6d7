"""The protocol a results folder was made under, and what differs from another."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

_ABSENT = "<absent>"


class CorruptResults(ValueError):
    """A file of a results folder cannot be read as what it should be (say protocol.json)."""


class ProtocolMismatch(ValueError):
    """The results folder holds results of another protocol; mixing them would be wrong."""

    def __init__(self, path: Path, differences: Mapping[str, tuple[Any, Any]]) -> None:
        self.path = path
        self.differences = dict(differences)
        listed = "; ".join(f"{key}: folder {old!r}, this run {new!r}"
                           for key, (old, new) in sorted(self.differences.items()))
        hint = next((h for key, h in RESUME_HINTS.items()
                     if self.differences.get(key, (None,))[0] == _ABSENT), "")
        super().__init__(
            f"{path} was written under another protocol ({listed}); {hint}use another output "
            "folder, or --force to replace the protocol"
        )


# What resumes a folder that lacks a key a later version of the protocol added.
RESUME_HINTS = {
    "train.early_failure.whole_pool": "it was made with the forecast rule's first version: "
    "resume it with --early-failure forecast-v1, or ",
}


def _flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    # Dotted keys name the exact setting that differs, e.g. "search.rtol".
    if isinstance(obj, Mapping) and obj:
        out: dict[str, Any] = {}
        for key, value in obj.items():
            out.update(_flatten(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: obj}


def diff_protocols(held: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, tuple]:
    """{dotted key: (held value, given value)} for every key whose value differs."""
    old, new = _flatten(held), _flatten(given)
    return {
        key: (old.get(key, _ABSENT), new.get(key, _ABSENT))
        for key in sorted(old.keys() | new.keys())
        if old.get(key, _ABSENT) != new.get(key, _ABSENT)
    }


def model_protocol(protocol: Mapping[str, Any], model: str) -> dict[str, Any]:
    """The protocol one model's results were made under: the folder's, with the settings the
    model's preset gave it of its own (``by_model``, only what differs) laid over it."""
    own = protocol.get("by_model", {}).get(model, {})
    merged = {k: v for k, v in protocol.items() if k != "by_model"}
    for part, values in own.items():
        merged[part] = {**protocol.get(part, {}), **values}
    return merged
