"""A results folder laid out as a Hub dataset repo: journal, nstar and kappa tables."""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from filelock import FileLock

from ..tasks.group_names import register_groups_file
from . import rows
from .card import render_card
from .jsonl import atomic_write_text, clean
from .protocol import (
    CorruptResults,
    NestedResults,
    ProtocolMismatch,
    extend_protocol,
    is_results_folder,
    not_a_results_folder,
    protocol_hash,
)
from .ranked import RankedJsonl
from .rows import CELL_COLUMNS, CellRow
from .tables import TABLES, table_of

logger = logging.getLogger(__name__)
R = TypeVar("R", bound=rows.Row)


GROUPS_FILE = "groups.yaml"
# Where a repair moves what a table's folder held that is not the table's (`set_aside`): kept,
# never deleted, and outside every path the card declares.
SET_ASIDE = "set-aside"


def read_groups(path: Path) -> dict[str, Any]:
    """The groups a folder's ``groups.yaml`` defines, empty where there is none."""
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.exists() else {}


class ResultsFolder:
    """``DIR/{README.md, protocol.json, campaign.json, journal/, nstar/, kappa/, ood/,
    lengthgen/, pushes/, heads/, patching/}``: one campaign, under one protocol (a folder
    made before a table existed reads it as empty).

    Each table is one JSONL file per process (``rank<r>.jsonl``), so processes never
    write the same file; only rank 0 writes protocol.json and campaign.json, each
    atomically. README.md declares the tables that hold rows: rank 0 writes it, and so does
    the process that gives a table its first row, under the card's lock. Appends are flushed
    and fsynced before returning, so a killed process loses at most the line it was writing;
    readers skip such a line with a warning, and rank 0's opening for writing drops it.

    Campaigns are sibling folders: a new folder (one without protocol.json) inside another
    results folder, or around one, is refused with NestedResults.
    """

    def __init__(self, path: str | Path, rank: int = 0, write: bool = True) -> None:
        """``write`` False opens a folder to read: nothing is created or rewritten. Either way
        a new folder is checked not to nest with another (NestedResults). The groups the
        folder's cells name from generators (``groups.yaml``) are registered first, so its
        rows parse wherever it is read."""
        self.path = Path(path)
        self.rank = rank
        if self.groups_file.exists():
            register_groups_file(self.groups_file)
        if not self.protocol_file.exists():
            check_not_nested(self.path)
        # The card declares the tables that hold rows: a table's first row puts it there.
        self._files = {table.name: RankedJsonl(self.path / table.name, rank, key=table.key,
                                              on_first_row=self._write_card,
                                              misfit=table.row.misfit)
                      for table in TABLES}
        if not write:
            return
        for table in self.tables:
            if table.directory.exists() and not table.directory.is_dir():
                raise CorruptResults(f"{table.directory} is a file where the {table.name} "
                                     f"table's folder belongs: hf-induction check {self.path} "
                                     "--repair moves it aside")
            table.directory.mkdir(parents=True, exist_ok=True)
        if rank == 0:
            # A line torn by a killed writer would fail `load_dataset` on the table until a
            # later append happened to mend it: every command that writes here mends it first.
            for dropped in self.repair():
                logger.warning(dropped)
            for upgraded in self.upgrade():
                logger.warning(upgraded)
            # What a dropped line or a deleted journal lost, where an N* row records it: so a
            # rerun writes it again even where the search itself is finished.
            if restored := self.restore_journal():
                logger.warning(f"{self.table(rows.JournalRow).directory}: restored {restored} "
                               "run(s) from the N* rows that record them")
            self._write_card()

    def table(self, which: str | type[rows.Row]) -> RankedJsonl:
        """A table's files, by its row class or its name (`tables.TABLES`): its lines as
        stored, for what reads or writes them below the rows (repairs, checks)."""
        name = which if isinstance(which, str) else table_of(which).name
        if name not in self._files:
            raise ValueError(f"no table {name!r}; the tables: {', '.join(self._files)}")
        return self._files[name]

    @property
    def tables(self) -> tuple[RankedJsonl, ...]:
        return tuple(self._files.values())

    @classmethod
    def existing(cls, path: str | Path) -> ResultsFolder:
        """A folder `hf-induction nstar` has written, opened to read; creates nothing where
        there is none.

        Raises FileNotFoundError naming the path when it is not a results folder.
        """
        path = Path(path)
        if not is_results_folder(path):
            raise FileNotFoundError(not_a_results_folder(path))
        folder = cls(path, write=False)
        folder.read_protocol()  # a garbled protocol.json is one error here, not later
        return folder

    @property
    def protocol_file(self) -> Path:
        return self.path / "protocol.json"

    @property
    def campaign_file(self) -> Path:
        """What the card says beside the protocol: a description and the commands that wrote
        the folder. Not in protocol.json, whose hash keys the runs: rewording it changes none."""
        return self.path / "campaign.json"

    def repair(self) -> list[str]:
        """Drop every table's torn and garbled lines; one line per file mended."""
        return [said for table in self.tables for said in table.repair()]

    def set_aside(self) -> list[str]:
        """Move into ``set-aside/<table>/`` (never delete) what would stop `load_dataset`
        reading a table: a file of its folder that is not a rank file, a line that is JSON but
        not a row of the table; one line per thing moved. Call it after `repair`."""
        return [said for table in self.tables
                for said in table.set_aside(self.path / SET_ASIDE / table.name)]

    def restore_journal(self) -> int:
        """Append to the journal every run an N* row records and the journal lacks (a line
        dropped, a journal deleted); the number of runs restored. An N* row stores its runs
        whole, as the journal does."""
        # The N* rows first: a search journals its runs before its row, so a run of any row
        # read here is in the journal read next unless it was lost, even while others write.
        searches = self.table(rows.NstarRow).read()
        held = {row["key"] for row in self.table(rows.JournalRow).read() if "key" in row}
        restored = 0
        for row in searches:
            for run in search_runs(row) or ():
                if run["key"] not in held:
                    self.append_run(run["key"], run)
                    held.add(run["key"])
                    restored += 1
        return restored

    def upgrade(self) -> list[str]:
        """Rewrite the rows an older version wrote in an older schema, so that every line of a
        table has one schema, the card's, and ``load_dataset`` reads it: N* rows with a boolean
        ``converged`` in place of ``search_end``, and rows of a cell without the columns its
        name parses into (`CELL_COLUMNS`: the group facts came last). The row classes read
        both; a line they cannot read is left as written (``hf-induction check`` names it).
        One line per file rewritten."""
        said = []
        for table in TABLES:
            if not issubclass(table.row, CellRow):
                continue

            def current(row: dict[str, Any], cls: type[CellRow] = table.row) -> dict[str, Any]:
                if not ("converged" in row or any(c not in row for c in CELL_COLUMNS)):
                    return row
                try:
                    return cls.from_dict(row).to_dict()
                except (ValueError, KeyError, TypeError):
                    return row

            said += [f"{path}: rows rewritten in the current schema (search_end in place of "
                     f"converged; every column the cell's name parses into)"
                     for path in self._files[table.name].rewrite(current)]
        return said

    def _write_card(self) -> None:
        card = self.path / "README.md"
        (self.path / ".locks").mkdir(parents=True, exist_ok=True)
        # Any process may add a table it gave a first row: the card is read and written
        # under one lock, so of two processes the later one sees both tables.
        with FileLock(str(self.path / ".locks" / "card.lock")):
            text = self.card_text()
            if not card.exists() or card.read_text(encoding="utf-8") != text:
                atomic_write_text(card, text)

    def card_text(self, name: str | None = None) -> str:
        """The README.md that the folder's campaign, protocol and tables with rows give, under
        ``name`` (default: the folder's own)."""
        campaign = self.read_campaign()
        return render_card(name or self.path.resolve().name, campaign["description"],
                           self.read_protocol(), campaign["commands"],
                           tables=[t.name for t in self.tables if t.has_rows()])

    def _read_object(self, path: Path, what: str) -> dict[str, Any] | None:
        if not path.exists():
            return None
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CorruptResults(f"{path} is not valid JSON ({e}): fix it, or move it away "
                                 "to start the folder anew") from None
        if not isinstance(found, dict):
            raise CorruptResults(f"{path} holds no {what} (a JSON object): fix it, or move it "
                                 "away")
        return found

    def read_protocol(self) -> dict[str, Any] | None:
        """The recorded protocol, None if there is none; CorruptResults if it is garbled."""
        return self._read_object(self.protocol_file, "protocol")

    def read_campaign(self) -> dict[str, Any]:
        """``{"description": str, "commands": [str, ...]}``, empty where none is recorded;
        CorruptResults if campaign.json is garbled."""
        found = self._read_object(self.campaign_file, "campaign description") or {}
        return {"description": str(found.get("description", "")),
                "commands": [str(c) for c in found.get("commands", [])]}

    def _update_campaign(self, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        # Rank 0 writes, under the folder's campaign lock, as it writes protocol.json.
        if self.rank != 0:
            return
        (self.path / ".locks").mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path / ".locks" / "campaign.lock")):
            held = self.read_campaign()
            new = change(held)
            if new != held:
                atomic_write_text(self.campaign_file,
                                  json.dumps(new, indent=2, ensure_ascii=False) + "\n")
            self._write_card()

    def describe(self, description: str) -> None:
        """Say in words what the folder holds (the card's first paragraph); rank 0 writes."""
        self._update_campaign(lambda c: {**c, "description": description.strip()})

    @property
    def groups_file(self) -> Path:
        """The groups from generators that the folder's cells name (``name: [generators]``)."""
        return self.path / GROUPS_FILE

    def record_groups(self, groups: Mapping[str, Any]) -> None:
        """Add ``groups`` (name -> generators, `tasks.group_names.registered`) to the folder's
        ``groups.yaml``, which every later opening registers; rank 0 writes."""
        if self.rank != 0 or not groups:
            return
        with FileLock(str(self.path / ".locks" / "groups.lock")):
            held = read_groups(self.groups_file)
            merged = {**held, **{k: [list(g) for g in v] for k, v in groups.items()}}
            if merged != held:
                atomic_write_text(self.groups_file, yaml.safe_dump(merged,
                                                                   default_flow_style=None))

    def record_command(self, command: str | Sequence[str]) -> None:
        """List a command line that wrote into the folder on its card, once: a string as it
        is, an ``argv`` (``sys.argv``) through `command_line`. Rank 0 writes; a rerun of the
        same command (a resume) adds nothing."""
        line = command if isinstance(command, str) else command_line(command)
        self._update_campaign(lambda c: c if line in c["commands"]
                              else {**c, "commands": [*c["commands"], line]})

    def check_protocol(self, protocol: Mapping[str, Any], force: bool = False) -> str:
        """Refuse a folder made under another protocol; record the protocol if absent.

        Returns the protocol's hash (to put in run keys and rows). Raises ProtocolMismatch
        listing the differing keys, unless ``force``, which replaces protocol.json. Only
        rank 0 writes: call this on the main process first, then on the others.
        """
        # Compare as stored JSON, so a tuple and the list read back count as equal.
        given = clean(protocol)
        # Checked and recorded under one lock: of two launches with different protocols, the
        # second to take it sees the first's protocol, and is refused.
        (self.path / ".locks").mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path / ".locks" / "protocol.lock")):
            held = self.read_protocol()
            record = given
            if held is not None and held != given:
                extended, differences = extend_protocol(held, given)
                if not differences:
                    record = extended
                elif not force:
                    raise ProtocolMismatch(self.protocol_file, differences)
                else:
                    warnings.warn(
                        f"{self.protocol_file}: replacing the protocol (forced); differing "
                        "keys: " + ", ".join(differences),
                        stacklevel=2,
                    )
            if record != held and self.rank == 0:
                text = json.dumps(record, indent=2, sort_keys=True, allow_nan=False) + "\n"
                atomic_write_text(self.protocol_file, text)
                self._write_card()
        return protocol_hash(record)

    def claim(self, key: str) -> FileLock:
        """The lock that claims the job ``key`` of this folder for one process: a process of
        another launch that asks for it waits, or works on other jobs first. The operating
        system releases it when its holder dies, so a killed launch leaves no stale claim,
        and the workers a killed launcher orphaned keep theirs while they run."""
        claims = self.path / "claims"
        claims.mkdir(exist_ok=True)
        return FileLock(str(claims / f"{key}.lock"))

    def append_run(self, key: str, record: Mapping[str, Any]) -> dict[str, Any]:
        """Journal one finished training run under ``key``; returns the row as stored."""
        if "key" in record and record["key"] != key:
            raise ValueError(f"record carries key {record['key']!r}, not {key!r}")
        row = clean({**record, "key": key})
        self.table(rows.JournalRow).append(row)
        return row

    def find_run(self, key: str) -> dict[str, Any] | None:
        return self.table(rows.JournalRow).find(key)

    def read_journal(self) -> list[dict[str, Any]]:
        return self.table(rows.JournalRow).read()

    def append(self, row: rows.Row) -> None:
        """Append ``row`` to the table of its class (`tables.TABLES`)."""
        self.table(type(row)).append(row.to_dict())

    def find(self, row_class: type[R], key: str) -> R | None:
        """The row of class ``row_class`` under ``key`` (the last written), None if none."""
        found = self.table(row_class).find(key)
        return None if found is None else row_class.from_dict(found)

    def read(self, row_class: type[R]) -> list[R]:
        """Every row of the table of ``row_class``, rank by rank, each in the order written."""
        return [row_class.from_dict(row) for row in self.table(row_class).read()]

    def append_push(self, key: str, repo_id: str, search_key: str) -> None:
        """Record a checkpoint push that landed (``repo_id``, of the search ``search_key``)."""
        self.append(rows.PushRow.now(key, repo_id, search_key))

    def refresh(self) -> None:
        """Forget the key indexes, so the next lookup sees other processes' new rows."""
        for table in self.tables:
            table.refresh()


def search_runs(row: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The runs an N* row's probes record; None where its probes are not readable."""
    try:
        probes = json.loads(row.get("probes") or "[]")
        return [run for probe in probes for run in probe.get("runs", ()) if "key" in run]
    except (TypeError, AttributeError, json.JSONDecodeError):
        return None


def command_line(argv: Sequence[str]) -> str:
    """``sys.argv`` as a command to type again: a script as ``python PATH`` (relative to the
    working directory where it lies under it), an entry point by its name."""
    program = Path(argv[0])
    if program.suffix == ".py":
        if program.is_absolute() and program.is_relative_to(Path.cwd()):
            program = program.relative_to(Path.cwd())
        head = ["python", str(program)]
    else:
        head = [program.name]
    return shlex.join([*head, *argv[1:]])


def _shown(path: Path) -> str:
    # Relative to the working directory where it lies under it, as one would type it.
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def check_not_nested(path: str | Path) -> None:
    """Refuse a new results folder at ``path`` inside a results folder (an ancestor holds a
    protocol.json) or around one (a folder under it does): NestedResults naming both."""
    path = Path(path)
    here = path.resolve()
    for parent in here.parents:
        if (parent / "protocol.json").is_file():
            raise NestedResults(
                f"{path} would be a results folder inside the results folder {_shown(parent)}: "
                "give each campaign its own folder beside the others")
    if not here.is_dir():
        return
    for root, dirs, files in os.walk(here):
        if "protocol.json" in files:
            raise NestedResults(
                f"{path} would be a results folder around the results folder "
                f"{_shown(Path(root))}: give each campaign its own folder beside the others")
        # Locks, caches and a VCS's folders hold no campaigns.
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))


def existing_results_folder(text: str) -> ResultsFolder:
    """An argparse ``type=``: `ResultsFolder.existing`, its error reported as a usage error
    (the script exits with 2 and a message naming the path)."""
    try:
        return ResultsFolder.existing(text)
    except (FileNotFoundError, CorruptResults) as e:
        raise argparse.ArgumentTypeError(str(e)) from None
