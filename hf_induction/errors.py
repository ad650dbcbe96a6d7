"""Errors as the one line a user reads."""

from __future__ import annotations


def first_line(error: BaseException) -> str:
    """An error's first line, for a one-line message; its type where it says nothing."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def once(flag: str, names, keys=None) -> None:
    """ValueError, one line, if two of ``names`` (or, when given, their ``keys``: the cells
    they parse to) are the same: ``acot_L5`` and ``acot_L5_m5`` name one cell."""
    keys = list(names) if keys is None else list(keys)
    for i, key in enumerate(keys):
        if key in keys[:i]:
            first = list(names)[keys.index(key)]
            again = list(names)[i]
            same = "twice" if first == again else f"twice ({first} and {again} are one)"
            raise ValueError(f"{flag} names {again} {same}; give each once")
