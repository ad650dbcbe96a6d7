"""Every results folder the repository publishes (each folder under results/ that holds a
protocol.json) reads with every reader: the tables, the kappa command, the report, the
leaderboard over all of them, the Space's loaders, the resume of a search, and the Hub after
a push."""

import contextlib
import io
import json
import math
import shutil
import warnings
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hf_induction.results import (
    CorruptLineWarning,
    KappaRow,
    LengthGenRow,
    NstarRow,
    OodRow,
    PushRow,
    ResultsFolder,
)
from hf_induction.results.jsonl import read_jsonl

RESULTS = Path(__file__).resolve().parents[2] / "results"
FOLDERS = sorted(p.parent for p in RESULTS.rglob("protocol.json"))
# Every table of a results folder, with the row class its readers build (None: plain dicts).
TABLES = {"journal": None, "nstar": NstarRow, "kappa": KappaRow, "ood": OodRow,
          "lengthgen": LengthGenRow, "pushes": PushRow}
HUB_TABLES = ["nstar", "pushes"]


def test_the_repository_publishes_results():
    assert FOLDERS, f"no results folder (protocol.json) under {RESULTS}"


def lines_of(folder: Path, table: str) -> list[dict]:
    """The table's rows straight from its files, without `datasets`: what every reader must see."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", CorruptLineWarning)
        return [row for path in sorted((folder / table).glob("*.jsonl"))
                for row in read_jsonl(path)]


def same_row(read: dict, written: dict) -> bool:
    """Whether `datasets` read back the row written. Its json builder may pass the lines
    through pandas' ujson, which parses a float to about 15 digits, not 17, and pyarrow takes
    an ISO time for a timestamp, given back as text in UTC without its offset: so floats
    match closely, and times as instants."""
    def instant(text: str) -> datetime:
        when = datetime.fromisoformat(text)
        return when if when.tzinfo else when.replace(tzinfo=timezone.utc)

    def same(a, b) -> bool:
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(map(same, a, b))
        if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
            return math.isclose(a, b, rel_tol=1e-12)
        return a == b

    return read.keys() == written.keys() and all(
        instant(read[k]) == instant(written[k]) if k == "finished_at" else same(read[k], written[k])
        for k in written)


def latest(rows: list[dict]) -> dict[str, dict]:
    return {row["key"]: row for row in rows}


def copy_of(folder: Path, out: Path) -> Path:
    """A copy of the folder, less the locks of the processes that wrote it."""
    return Path(shutil.copytree(folder, out, ignore=shutil.ignore_patterns(".locks", "claims")))


def table_lines(markdown: str, section: str) -> list[str]:
    """The rows (no header) of the first table under the heading ``section``."""
    text = markdown.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    return [line for line in text.splitlines() if line.startswith("| ")][1:]


def run_main(main, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.relative_to(RESULTS.parent).as_posix())
def test_every_reader_reads_the_folder(folder, tmp_path):
    from hf_induction.commands import kappa, report
    from hf_induction.hub.leaderboard import load_table
    from hf_induction.hub.sources import checkpoint_repos, load_protocol, protocol_summary
    from hf_induction.results import kappa_rows

    expected = {table: lines_of(folder, table) for table in TABLES}
    # The tables through `datasets`: every row of every file, empty files or not.
    read = {table: load_table(folder, table) for table in TABLES}
    for table, row_class in TABLES.items():
        assert len(read[table]) == len(expected[table]), table
        assert all(map(same_row, read[table], expected[table])), table
        if row_class is not None:
            assert [row_class.from_dict(r).key for r in read[table]] == [
                r["key"] for r in expected[table]], table
    # As the card declares it: a pool (S5 at length 10 holds 6e20 words) is a float.
    assert all(isinstance(r["pool_size"], float) for r in read["nstar"])
    nstar = [NstarRow.from_dict(r) for r in latest(expected["nstar"]).values()]

    # The kappa command: one line per κ the folder records or its N* rows allow.
    results = ResultsFolder.existing(folder)
    rc, out, err = run_main(kappa.main, [str(folder)])
    allowed = kappa_rows(results)
    assert rc == (0 if allowed else 1), err
    assert len([line for line in out.splitlines() if line.startswith("| ")]) == (
        len(allowed) + 1 if allowed else 0)

    # The report: every search of the folder in its N* table.
    rc, out, err = run_main(report.main, [str(folder), "--out", str(tmp_path / "report")])
    assert rc == 0, err
    tables = (tmp_path / "report" / "tables.md").read_text(encoding="utf-8")
    assert len(table_lines(tables, "N* per search")) == len(nstar)

    # The Space's loaders: the protocol, its summary per model, the checkpoints pushed.
    protocol = json.loads((folder / "protocol.json").read_text(encoding="utf-8"))
    assert load_protocol(folder) == protocol
    assert protocol_summary(protocol) != "?"
    for model in {r.model for r in nstar}:
        assert protocol_summary(protocol, model) != "?"
    pushed = {row["search"]: row["repo_id"] for row in expected["pushes"]}
    assert checkpoint_repos(folder) == {
        (r.dataset, r.config, r.model): pushed[r.key] for r in nstar if r.key in pushed}

    # The resume of a search (nstar.py on the folder again), on a copy: the protocol is the
    # folder's own, and every finished search, run and check is answered from the folder.
    resumed = ResultsFolder(copy_of(folder, tmp_path / "copy"), rank=0)
    protocol_hash = resumed.check_protocol(resumed.read_protocol())
    for key, row in latest(expected["nstar"]).items():
        assert resumed.find(NstarRow, key) == NstarRow.from_dict(row)
        # Made under the folder's protocol: a search of another is never answered from it.
        assert row["protocol_hash"] == protocol_hash, key
    for key, row in latest(expected["journal"]).items():
        assert resumed.find_run(key) == row
    for key, row in latest(expected["kappa"]).items():
        assert resumed.find(KappaRow, key) == KappaRow.from_dict(row)
    for key, row in latest(expected["lengthgen"]).items():
        assert resumed.find(LengthGenRow, key) == LengthGenRow.from_dict(row)
    for key, row in latest(expected["ood"]).items():
        assert resumed.find(OodRow, key) == OodRow.from_dict(row)
    for key, row in latest(expected["pushes"]).items():
        assert resumed.find(PushRow, key) == PushRow.from_dict(row)


def test_one_leaderboard_over_every_folder(tmp_path):
    from hf_induction.hub.leaderboard import write_leaderboard

    md, *figures = write_leaderboard(FOLDERS, tmp_path)
    board = md.read_text(encoding="utf-8")
    several = len(FOLDERS) > 1
    for section, table in [("κ per model", "kappa"), ("N* per search", "nstar"),
                           ("Length generalisation", "lengthgen")]:
        rows = {folder: latest(lines_of(folder, table)) for folder in FOLDERS}
        lines = table_lines(board, section) if f"## {section}" in board else []
        # One line per recorded row (the last per key) of every folder, naming its folder.
        assert len(lines) == sum(map(len, rows.values())), section
        for folder in FOLDERS if several else ():
            assert sum(line.endswith(f" {folder} |") for line in lines) == len(rows[folder])
    assert all(f.stat().st_size > 0 for f in figures)


# Every folder through the Hub stand-in and back: the slowest reader.
@pytest.mark.slow
def test_every_folder_pushes_and_reads_back_from_the_hub(hub_server, tmp_path):
    # One client process for every folder: the Hub's clients read its address at import.
    # Read back: the N* rows, and the pushes (the table the Space's first read failed on).
    copies = {f"org/{'-'.join(folder.relative_to(RESULTS).parts) or 'results'}":
              str(copy_of(folder, tmp_path / str(i))) for i, folder in enumerate(FOLDERS)}
    proc = hub_server.run_python(f"""
import json
from hf_induction.hub import push_results
from hf_induction.hub.leaderboard import load_table
counts = {{}}
for repo, folder in {copies!r}.items():
    push_results(folder, repo, create=True)
    counts[repo] = {{table: len(load_table(repo, table)) for table in {HUB_TABLES!r}}}
print(json.dumps(counts))
""", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    counts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert counts == {repo: {table: len(lines_of(Path(folder), table)) for table in HUB_TABLES}
                      for repo, folder in copies.items()}
