"""A table stored as one JSONL file per process rank, with an in-memory index by key."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from filelock import FileLock

from .jsonl import (
    append_line,
    atomic_write_text,
    misfits,
    read_jsonl,
    repair,
    set_aside_lines,
    to_json,
)

_RANK_FILE = re.compile(r"rank(\d+)\.jsonl")
logger = logging.getLogger(__name__)


def _holds_a_line(path: Path) -> bool:
    with open(path, "rb") as f:
        # Iterating a binary file yields its lines; the last may lack its newline (torn).
        return any(raw.endswith(b"\n") and raw.strip() for raw in f)


def _free_name(path: Path) -> Path:
    """``path``, or ``path.1``, ``path.2`` ... where it is taken: a file set aside twice keeps
    both copies."""
    found, k = path, 0
    while found.exists():
        k += 1
        found = path.with_name(f"{path.name}.{k}")
    return found


class RankedJsonl:
    """Rows in ``<directory>/rank<r>.jsonl``: a process appends only to its own rank's file.

    Reads merge every rank's file. The key index follows the files as they grow: every
    lookup reads the bytes appended since the last one (files only ever grow by whole lines),
    so rows another process or another launch writes are seen at the next lookup. Appends
    hold the file's lock (``filelock``, as `datasets` and `huggingface_hub` lock their
    caches), so two launches whose processes share a rank never interleave their lines; the
    first append of a process also repairs the file (a garbled line dropped).
    """

    def __init__(self, directory: Path, rank: int, key: str = "key",
                 on_first_row: Callable[[], None] | None = None,
                 misfit: Callable[[dict[str, Any]], str | None] | None = None) -> None:
        """Rows are indexed by their ``key`` column; ``on_first_row`` is called after this
        process's first append (the folder declares a table on its card once it holds a row);
        ``misfit`` says why a JSON object is not a row of the table (`rows.Row.misfit`; None:
        every object is)."""
        self.directory = directory
        self.key = key
        self.misfit = misfit or (lambda row: None)
        self.name = directory.name
        self.on_first_row = on_first_row
        self.own_file = directory / f"rank{rank}.jsonl"
        # Beside the tables, not in them: a table's folder holds its rows only.
        self.lock_file = directory.parent / ".locks" / f"{directory.name}-rank{rank}.lock"
        self._index: dict[str, dict[str, Any]] | None = None
        self._offsets: dict[Path, int] = {}
        self._repaired = False
        self._appended = False

    def files(self) -> list[Path]:
        found = [(int(m.group(1)), p) for p in self.directory.glob("rank*.jsonl")
                 if (m := _RANK_FILE.fullmatch(p.name))]
        return [p for _, p in sorted(found)]

    def has_rows(self) -> bool:
        """Whether some rank's file holds a complete line, without reading the files whole."""
        return any(_holds_a_line(path) for path in self.files())

    def read(self) -> list[dict[str, Any]]:
        """Every row of every rank, rank by rank, each in the order written."""
        return [row for path in self.files() for row in read_jsonl(path)]

    def lock(self) -> FileLock:
        self.lock_file.parent.mkdir(exist_ok=True)
        return FileLock(str(self.lock_file))

    def append(self, row: dict[str, Any]) -> None:
        with self.lock():
            # A table's folder deleted while the process runs is made again, not a crash.
            self.directory.mkdir(parents=True, exist_ok=True)
            if not self._repaired:
                dropped = repair(self.own_file)
                if dropped:
                    logger.warning(dropped)
                self._repaired = True
            append_line(self.own_file, to_json(row))
        if self._index is not None and self.key in row:
            self._index[row[self.key]] = row
        if not self._appended:
            self._appended = True
            if self.on_first_row is not None:
                self.on_first_row()

    def _writer_lock(self, path: Path) -> FileLock:
        """The lock that the writer of the rank file ``path`` holds while appending."""
        rank = _RANK_FILE.fullmatch(path.name).group(1)
        self.lock_file.parent.mkdir(exist_ok=True)
        return FileLock(str(self.lock_file.with_name(f"{self.name}-rank{rank}.lock")))

    def rewrite(self, row_of: Callable[[dict[str, Any]], dict[str, Any]]) -> list[Path]:
        """Rewrite every rank's file with ``row_of`` applied to each row, each file under its
        writer's lock and atomically, only where a row changes; the files rewritten."""
        rewritten = []
        for path in self.files():
            with self._writer_lock(path):
                rows = read_jsonl(path)
                new = [row_of(row) for row in rows]
                if new != rows:
                    atomic_write_text(path, "".join(to_json(row) + "\n" for row in new))
                    rewritten.append(path)
        if rewritten:
            self._index, self._offsets = None, {}
        return rewritten

    def repair(self) -> list[str]:
        """Drop the torn and garbled lines of every rank's file, each under its writer's lock;
        one line per file mended, saying what was dropped."""
        dropped = []
        for path in self.files():
            with self._writer_lock(path):
                if said := repair(path):
                    dropped.append(said)
        return dropped

    def strays(self) -> list[Path]:
        """What the table's folder holds besides its rank files (a hidden name is a write in
        progress): `load_dataset` reads every ``*.jsonl`` there as rows of the table. A file
        where the folder belongs is a stray itself."""
        if self.directory.exists() and not self.directory.is_dir():
            return [self.directory]
        if not self.directory.is_dir():
            return []
        return sorted(p for p in self.directory.iterdir()
                      if not _RANK_FILE.fullmatch(p.name) and not p.name.startswith("."))

    def misfits(self) -> dict[Path, list[tuple[int, str]]]:
        """Each rank file's lines that are JSON objects but not rows of the table: (line number,
        why), by file; reads only."""
        return {path: found for path in self.files() if (found := misfits(path, self.misfit))}

    def set_aside(self, aside: Path) -> list[str]:
        """Move into ``aside`` (never delete) what would stop `load_dataset` reading the table:
        every stray of the folder (`strays`), and every rank file's lines that are not rows of
        the table (each file under its writer's lock); one line per thing moved."""
        said = []
        for stray in self.strays():
            moved = _free_name(aside / stray.name)
            moved.parent.mkdir(parents=True, exist_ok=True)
            what = (f"a file where the {self.name} table's folder belongs"
                    if stray == self.directory else f"not a file of the {self.name} table")
            stray.rename(moved)
            said.append(f"{stray}: {what}; moved to {moved}")
        for path in self.files():
            with self._writer_lock(path):
                if count := set_aside_lines(path, self.misfit, aside / path.name):
                    said.append(f"{path}: {count} line(s) that are not {self.name} rows moved "
                                f"to {aside / path.name}")
        if said:
            self._index, self._offsets = None, {}
        return said

    def _sync(self) -> None:
        """Add the complete lines appended to any rank file since the last sync."""
        if self._index is None:
            self._index, self._offsets = {}, {}
        for path in self.files():
            start = self._offsets.get(path, 0)
            size = path.stat().st_size
            if size < start:
                # Rewritten by a repair: read it whole again.
                start = 0
            if size == start:
                continue
            with open(path, "rb") as f:
                f.seek(start)
                data = f.read(size - start)
            end = data.rfind(b"\n") + 1  # a line still being written waits for the next sync
            for raw in data[:end].split(b"\n"):
                try:
                    row = json.loads(raw) if raw.strip() else None
                except (UnicodeDecodeError, json.JSONDecodeError):
                    row = None  # read_jsonl warns of it; the index skips it
                if isinstance(row, dict) and self.key in row:
                    # A key recorded twice (a forced rerun) resolves to the row read last.
                    self._index[row[self.key]] = row
            self._offsets[path] = start + end

    def find(self, key: str) -> dict[str, Any] | None:
        self._sync()
        return self._index.get(key)

    def refresh(self) -> None:
        """Forget the index; the next lookup reads every file again."""
        self._index = None
