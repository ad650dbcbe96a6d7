"""Strict JSON lines on disk: durable appends, tolerant reads, atomic whole-file writes."""

from __future__ import annotations

import json
import math
import os
import uuid
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


class CorruptLineWarning(UserWarning):
    """A JSONL line that could not be read (a killed process leaves half a line)."""


def clean(obj: Any) -> Any:
    """Plain JSON values only: tuples become lists, non-finite floats become None.

    Strict JSON has no NaN or Infinity, and ``load_dataset`` refuses them, so a diverged
    loss is stored as null; the run's recorded reason says why.
    """
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, Mapping):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    return obj


def to_json(obj: Any, *, sort_keys: bool = False) -> str:
    """One line of strict JSON."""
    return json.dumps(clean(obj), sort_keys=sort_keys, separators=(",", ":"), allow_nan=False)


def append_line(path: Path, line: str) -> None:
    """Append one line and make it durable before returning (flush, then fsync)."""
    # One write call for the whole line keeps a crash to at most one partial last line.
    with open(path, "ab") as f:
        f.write(line.encode("utf-8") + b"\n")
        f.flush()
        os.fsync(f.fileno())


def _damage(data: bytes) -> tuple[list[bytes], list[str]]:
    """(the whole JSON-object lines, what else the file holds in words: a partial last line,
    garbled lines, each with its size)."""
    lines = data.split(b"\n")
    tail = lines.pop()
    keep = [raw for raw in lines if raw.strip() and _is_object(raw)]
    garbled = [raw for raw in lines if raw.strip() and not _is_object(raw)]
    what = [*([f"a partial last line ({len(tail)} bytes)"] if tail.strip() else []),
            *([f"{len(garbled)} garbled line(s) ({sum(len(r) + 1 for r in garbled)} bytes)"]
              if garbled else [])]
    return keep, what


def damage(path: Path) -> str | None:
    """What `repair` would drop from the file, in words (None where it is whole); reads only."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    _, what = _damage(path.read_bytes())
    return " and ".join(what) or None


def repair(path: Path) -> str | None:
    """Drop what a reader would skip: a partial last line (a killed writer) and any line that
    is not a JSON object (a garbled one), so the file reads clean and the runs those lines
    recorded are retrained. The file is rewritten atomically, only if something is dropped.

    Returns one line saying what was dropped (the file, how many lines, how many bytes), or
    None where the file was whole. Only the file's own writer may call this, holding the
    file's lock.
    """
    if not path.exists() or path.stat().st_size == 0:
        return None
    keep, what = _damage(path.read_bytes())
    if not what:
        return None
    atomic_write_text(path, "".join(raw.decode("utf-8") + "\n" for raw in keep))
    return (f"{path}: dropped {' and '.join(what)} left by an interrupted or damaged write; "
            "a rerun writes what they held again")


def misfits(path: Path, misfit: Callable[[dict[str, Any]], str | None]
            ) -> list[tuple[int, str]]:
    """(line number from 1, why) of every whole JSON-object line of ``path`` that ``misfit``
    refuses (a line that is JSON but not a row of the file's table); reads only."""
    if not path.exists():
        return []
    found = []
    for number, raw in enumerate(path.read_bytes().split(b"\n")[:-1], start=1):
        row = _object(raw)
        if row is not None and (why := misfit(row)):
            found.append((number, why))
    return found


def set_aside_lines(path: Path, misfit: Callable[[dict[str, Any]], str | None],
                    aside: Path) -> int:
    """Move the whole JSON-object lines of ``path`` that ``misfit`` refuses to the end of
    ``aside`` (made where missing; never deleted), then rewrite ``path`` without them,
    atomically; the number of lines moved. Only the file's own writer may call this, holding
    the file's lock."""
    if not path.exists():
        return 0
    lines = path.read_bytes().split(b"\n")
    # A partial last line stays where it is: a repair drops it, or its writer finishes it.
    tail = lines.pop()
    kept, moved = [], []
    for raw in lines:
        row = _object(raw)
        (moved if row is not None and misfit(row) else kept).append(raw)
    if not moved:
        return 0
    aside.parent.mkdir(parents=True, exist_ok=True)
    with open(aside, "ab") as f:
        f.write(b"".join(raw + b"\n" for raw in moved))
        f.flush()
        os.fsync(f.fileno())
    atomic_write_text(path, "".join(raw.decode("utf-8") + "\n" for raw in kept)
                      + tail.decode("utf-8", errors="replace"))
    return len(moved)


def _object(raw: bytes) -> dict[str, Any] | None:
    """The JSON object a line holds, None for anything else."""
    try:
        row = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return row if isinstance(row, dict) else None


def _is_object(raw: bytes) -> bool:
    return _object(raw) is not None


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every complete, valid JSON-object line of a file; anything else is skipped with a warning."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    # Text after the last newline is a line still being written, or one a crash cut short.
    tail = lines.pop()
    if tail.strip():
        warnings.warn(
            f"{path}: skipping an unterminated last line ({len(tail)} bytes)",
            CorruptLineWarning,
            stacklevel=2,
        )
    rows = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            row = None
        if not isinstance(row, dict):
            warnings.warn(
                f"{path}:{number}: skipping a line that is not a JSON object",
                CorruptLineWarning,
                stacklevel=2,
            )
            continue
        rows.append(row)
    return rows


def atomic_write_text(path: Path, text: str) -> None:
    """Write a whole file so readers see the old content or the new, never a mixture."""
    # The temporary file sits beside the target: os.replace is atomic within one filesystem.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
