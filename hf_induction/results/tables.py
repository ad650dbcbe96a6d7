"""Every table of a results folder, declared once: its name (the folder of its files and the
dataset card's config), its row class, and the column that keys its rows.

`ResultsFolder` appends, finds and reads every table through these declarations, and the
card declares their columns from the row classes; adding a table is one line here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from . import rows


@dataclass(frozen=True)
class Table:
    """One table: ``<folder>/<name>/rank<r>.jsonl``, one `row` per line, keyed by `key`."""

    name: str
    row: type[rows.Row]
    key: str = "key"


# In the card's order: the first of them that holds rows is the card's default config.
TABLES: tuple[Table, ...] = (
    Table("nstar", rows.NstarRow),
    Table("kappa", rows.KappaRow),
    Table("ood", rows.OodRow),
    Table("reach", rows.ReachRow),
    Table("lengthgen", rows.LengthGenRow),
    Table("journal", rows.JournalRow),
    Table("pushes", rows.PushRow),
    Table("heads", rows.HeadsRow),
    Table("patching", rows.PatchingRow),
)
TABLE_OF_ROW: dict[type[rows.Row], Table] = {table.row: table for table in TABLES}


def table_of(row_class: type) -> Table:
    """The table whose rows are ``row_class``; ValueError naming the row classes there are."""
    try:
        return TABLE_OF_ROW[row_class]
    except KeyError:
        known = ", ".join(t.row.__name__ for t in TABLES)
        raise ValueError(f"{row_class.__name__} is not the row of a results table "
                         f"(the rows: {known})") from None


def latest(rows: Iterable[Any]) -> list[Any]:
    """One row per key, the last written (a rerun or a --force replaces a row)."""
    return list({r.key: r for r in rows}.values())
