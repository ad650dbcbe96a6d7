"""A results folder verified without training (``hf-induction check DIR``), and mended where
what is wrong can be rebuilt from what the folder still holds (``--repair``).

What is checked:

- every table's files: a partial last line (a writer killed mid-line) or a garbled line;
  mended by dropping them, as every command that writes into the folder does (a rerun
  writes what they held again, an N* row's runs restored from it when the folder opens);
- every table's folder: a file that is not one of its rank files (``load_dataset`` reads
  every ``*.jsonl`` there), and a line that is JSON but not a row of its table (a column it
  has not, a value of another type, a column missing); mended by moving them into
  ``set-aside/<table>/``, never deleting them;
- the N* rows against the journal: every run a search's probes record is a journal row, the
  same row. An N* row stores its runs whole, so a run missing from the journal (a journal
  file deleted or emptied) is restored from it; a run that differs from its journal row is
  reported only, since neither copy can be told right;
- the card: README.md is the card that the folder's tables with rows give (a table of no rows
  is not declared, `datasets` cannot load it), under the name its title gives (a folder
  copied or renamed is not damaged); mended by rewriting it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .card import card_name
from .folder import SET_ASIDE, ResultsFolder, search_runs
from .jsonl import CorruptLineWarning, damage
from .rows import JournalRow, NstarRow


@dataclass(frozen=True)
class Finding:
    """One thing wrong with a folder, in one line; ``mendable`` when ``--repair`` mends it."""

    line: str
    mendable: bool


def check_folder(folder: ResultsFolder) -> list[Finding]:
    """Everything wrong with ``folder``, reading only."""
    return [*_torn_lines(folder), *_strays(folder), *_misfits(folder),
            *_searches_against_journal(folder), *_card(folder)]


def repair_folder(folder: ResultsFolder) -> list[str]:
    """Mend what `check_folder` finds mendable; one line per thing done."""
    done = folder.repair() + folder.set_aside()
    restored = folder.restore_journal()
    if restored:
        done.append(f"{folder.table(JournalRow).directory}: restored {restored} run(s) from "
                    "the N* rows that record them")
    card = folder.path / "README.md"
    if not _card_current(folder):
        folder._write_card()
        done.append(f"{card}: rewritten from the folder's tables")
    return done


def _torn_lines(folder: ResultsFolder) -> Iterator[Finding]:
    for table in folder.tables:
        for path in table.files():
            if found := damage(path):
                yield Finding(f"{path}: {found} (--repair drops it; a rerun writes it again)",
                              mendable=True)


def _strays(folder: ResultsFolder) -> Iterator[Finding]:
    for table in folder.tables:
        aside = folder.path / SET_ASIDE / table.name
        for stray in table.strays():
            size = f"{stray.stat().st_size} bytes" if stray.is_file() else "a folder"
            if stray == table.directory:
                yield Finding(f"{stray}: a file where the {table.name} table's folder belongs "
                              f"({size}) (--repair moves it to {aside})", mendable=True)
                continue
            yield Finding(f"{stray}: not a file of the {table.name} table ({size}; its rows are "
                          f"rank<r>.jsonl files, and load_dataset reads every *.jsonl there) "
                          f"(--repair moves it to {aside})", mendable=True)


def _misfits(folder: ResultsFolder) -> Iterator[Finding]:
    for table in folder.tables:
        for path, found in table.misfits().items():
            number, why = found[0]
            yield Finding(f"{path}: {len(found)} line(s) that are not {table.name} rows (line "
                          f"{number}: {why}) (--repair moves them to "
                          f"{folder.path / SET_ASIDE / table.name})", mendable=True)


def _rows(table) -> list[dict[str, Any]]:
    """The table's rows; torn lines and lines that are not rows are reported on their own
    (`_torn_lines`, `_misfits`), and the readers' warnings would repeat them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorruptLineWarning)
        return [row for row in table.read() if table.misfit(row) is None]


def _name(row: dict[str, Any]) -> str:
    return (f"N* row {row.get('key')} ({row.get('dataset')}/{row.get('config')}, "
            f"{row.get('model')})")


def _searches_against_journal(folder: ResultsFolder) -> Iterator[Finding]:
    journal = {row["key"]: row for row in _rows(folder.table(JournalRow)) if "key" in row}
    searches = _rows(folder.table(NstarRow))
    if not journal and any(search_runs(row) for row in searches):
        runs = {run["key"] for row in searches for run in search_runs(row) or ()}
        yield Finding(f"{folder.table(JournalRow).directory}: holds no run, yet the N* rows "
                      f"record {len(runs)}: was the journal deleted? (--repair restores them "
                      "from the N* rows)", mendable=True)
        return
    for row in searches:
        runs = search_runs(row)
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


def _card_current(folder: ResultsFolder) -> bool:
    """Whether README.md is the card of what the folder holds, under the name its title gives:
    a folder copied or renamed keeps its card's title until a command writes there."""
    card = folder.path / "README.md"
    if not card.exists():
        return False
    text = card.read_text(encoding="utf-8")
    return text == folder.card_text(card_name(text))


def _card(folder: ResultsFolder) -> Iterator[Finding]:
    card = folder.path / "README.md"
    if not card.exists():
        yield Finding(f"{card}: missing (--repair writes it)", mendable=True)
    elif not _card_current(folder):
        with_rows = ", ".join(t.name for t in folder.tables if t.has_rows()) or "none"
        yield Finding(f"{card}: not the card of what the folder holds (tables with rows: "
                      f"{with_rows}; --repair rewrites it)", mendable=True)

