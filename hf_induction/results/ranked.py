"""A table stored as one JSONL file per process rank, with an in-memory index by key."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .jsonl import append_line, read_jsonl, repair_tail, to_json

_RANK_FILE = re.compile(r"rank(\d+)\.jsonl")


class RankedJsonl:
    """Rows in ``<directory>/rank<r>.jsonl``: this process appends only to its own file.

    Reads merge every rank's file. The key index is built on the first lookup and then
    kept up to date with this process's own appends; rows other processes append later
    are seen only after ``refresh()``. That is enough for resuming, which only needs what
    was recorded before the rerun started, and for a split in which each search belongs
    to one process.
    """

    def __init__(self, directory: Path, rank: int) -> None:
        self.directory = directory
        self.own_file = directory / f"rank{rank}.jsonl"
        self._index: dict[str, dict[str, Any]] | None = None
        self._tail_checked = False

    def files(self) -> list[Path]:
        found = [(int(m.group(1)), p) for p in self.directory.glob("rank*.jsonl")
                 if (m := _RANK_FILE.fullmatch(p.name))]
        return [p for _, p in sorted(found)]

    def read(self) -> list[dict[str, Any]]:
        """Every row of every rank, rank by rank, each in the order written."""
        return [row for path in self.files() for row in read_jsonl(path)]

    def append(self, row: dict[str, Any]) -> None:
        if not self._tail_checked:
            repair_tail(self.own_file)
            self._tail_checked = True
        append_line(self.own_file, to_json(row))
        if self._index is not None and "key" in row:
            self._index[row["key"]] = row

    def find(self, key: str) -> dict[str, Any] | None:
        if self._index is None:
            # A key recorded twice (a forced rerun) resolves to the row read last.
            self._index = {row["key"]: row for row in self.read() if "key" in row}
        return self._index.get(key)

    def refresh(self) -> None:
        self._index = None
