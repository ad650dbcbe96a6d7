"""A results folder verified without training (``hf-induction check DIR``), and mended where
what is wrong can be rebuilt from what the folder still holds (``--repair``).

What is checked:

- every table's files: a partial last line (a writer killed mid-line) or a garbled line;
  mended by dropping them (a rerun writes what they held again);
- the N* rows against the journal: every run a search's probes record is a journal row, the
  same row. An N* row stores its runs whole, so a run missing from the journal (a journal
  file deleted or emptied) is restored from it; a run that differs from its journal row is
  reported only, since neither copy can be told right;
- the card: README.md is the card that the folder's tables with rows give (a table of no rows
  is not declared, `datasets` cannot load it); mended by rewriting it.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .folder import ResultsFolder
from .jsonl import CorruptLineWarning, damage


@dataclass(frozen=True)
class Finding:
    """One thing wrong with a folder, in one line; ``mendable`` when ``--repair`` mends it."""

    line: str
    mendable: bool


def check_folder(folder: ResultsFolder) -> list[Finding]:
    """Everything wrong with ``folder``, reading only."""
    return [*_torn_lines(folder), *_searches_against_journal(folder), *_card(folder)]


def repair_folder(folder: ResultsFolder) -> list[str]:
    """Mend what `check_folder` finds mendable; one line per thing done."""
    done = folder.repair()
    restored = _restore_journal(folder)
    if restored:
        done.append(f"{folder.journal.directory}: restored {restored} run(s) from the N* rows "
                    "that record them")
    card = folder.path / "README.md"
    if not card.exists() or card.read_text(encoding="utf-8") != folder.card_text():
        folder._write_card()
        done.append(f"{card}: rewritten from the folder's tables")
    return done


def _torn_lines(folder: ResultsFolder) -> Iterator[Finding]:
    for table in folder.tables:
        for path in table.files():
            if found := damage(path):
                yield Finding(f"{path}: {found} (--repair drops it; a rerun writes it again)",
                              mendable=True)


def _rows(table) -> list[dict[str, Any]]:
    # Torn lines are reported on their own (`_torn_lines`): the readers' warnings would
    # repeat them.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorruptLineWarning)
        return table.read()


def _search_runs(row: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The runs an N* row's probes record; None where its probes are not readable."""
    try:
        probes = json.loads(row.get("probes") or "[]")
        return [run for probe in probes for run in probe.get("runs", ()) if "key" in run]
    except (TypeError, AttributeError, json.JSONDecodeError):
        return None


def _name(row: dict[str, Any]) -> str:
    return (f"N* row {row.get('key')} ({row.get('dataset')}/{row.get('config')}, "
            f"{row.get('model')})")


def _searches_against_journal(folder: ResultsFolder) -> Iterator[Finding]:
    journal = {row["key"]: row for row in _rows(folder.journal) if "key" in row}
    searches = _rows(folder.nstar)
    if not journal and any(_search_runs(row) for row in searches):
        runs = {run["key"] for row in searches for run in _search_runs(row) or ()}
        yield Finding(f"{folder.journal.directory}: holds no run, yet the N* rows record "
                      f"{len(runs)}: was the journal deleted? (--repair restores them from "
                      "the N* rows)", mendable=True)
        return
    for row in searches:
        runs = _search_runs(row)
        if runs is None:
            yield Finding(f"{_name(row)}: its probes are not readable JSON", mendable=False)
            continue
        missing = [run for run in runs if run["key"] not in journal]
        if missing:
            yield Finding(f"{_name(row)}: {len(missing)} of its {len(runs)} runs are not in "
                          "the journal (--repair restores them from this row)", mendable=True)
        for run in runs:
            held = journal.get(run["key"])
            differ = sorted(k for k in run.keys() | (held or {}).keys()
                            if held is not None and run.get(k) != held.get(k))
            if differ:
                yield Finding(f"{_name(row)}: run {run['key']} differs from its journal row "
                              f"in {', '.join(differ)}", mendable=False)


def _card(folder: ResultsFolder) -> Iterator[Finding]:
    card = folder.path / "README.md"
    if not card.exists():
        yield Finding(f"{card}: missing (--repair writes it)", mendable=True)
    elif card.read_text(encoding="utf-8") != folder.card_text():
        with_rows = ", ".join(t.name for t in folder.tables if t.has_rows()) or "none"
        yield Finding(f"{card}: not the card of what the folder holds (tables with rows: "
                      f"{with_rows}; --repair rewrites it)", mendable=True)


def _restore_journal(folder: ResultsFolder) -> int:
    """Append to the journal every run that an N* row records and the journal lacks."""
    held = {row["key"] for row in _rows(folder.journal) if "key" in row}
    restored = 0
    for row in _rows(folder.nstar):
        for run in _search_runs(row) or ():
            if run["key"] not in held:
                folder.append_run(run["key"], run)
                held.add(run["key"])
                restored += 1
    return restored
