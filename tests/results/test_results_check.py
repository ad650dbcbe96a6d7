"""``hf-induction check DIR``: a results folder verified without training, and ``--repair``."""

import json
import shutil
import warnings

import datasets
import pytest

from hf_induction.commands.check import main
from hf_induction.results import (
    CorruptLineWarning,
    CorruptResults,
    NstarRow,
    ResultsFolder,
    run_key,
)

PROTOCOL = {"train": {"max_steps": 10, "lrs": [0.01], "seeds": [1, 2], "epsilon": 1e-4},
            "search": {"mode": "refined"}}
CELL = {"dataset": "modadd", "config": "acot_L3", "model": "lstm"}


def search(folder: ResultsFolder, name: str, sizes: list[int], rank: int = 0) -> list[str]:
    """Journal a search's runs from process ``rank`` and record its N* row, as the runner
    does: the row's probes hold the journal rows whole. Returns the runs' keys."""
    writer = ResultsFolder(folder.path, rank=rank)
    probes = []
    for n in sizes:
        runs = [writer.append_run(run_key(kind="run", search=name, n=n, seed=seed),
                                  {**CELL, "n": n, "lr": 0.01, "seed": seed,
                                   "success": n >= 4, "steps": 10, "stop_reason": "budget"})
                for seed in (1, 2)]
        probes.append({"n": n, "success": n >= 4, "runs": runs})
    writer.table(NstarRow).append({"key": name, **CELL, "probes": json.dumps(probes)})
    return [run["key"] for probe in probes for run in probe["runs"]]


@pytest.fixture
def folder(tmp_path):
    folder = ResultsFolder(tmp_path / "results")
    folder.check_protocol(PROTOCOL)
    search(folder, "s1", [2, 4])
    search(folder, "s2", [3, 6], rank=1)
    return folder


def check(folder, *flags, capsys):
    code = main([str(folder.path), *flags])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def journal_keys(folder) -> set[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", CorruptLineWarning)
        return {row["key"] for row in folder.read_journal()}


def test_a_clean_folder_is_exit_0(folder, capsys):
    assert check(folder, capsys=capsys) == (0, [f"{folder.path}: clean"], [])


def test_a_torn_line_is_reported_and_left_as_it_is(folder, capsys):
    journal = folder.path / "journal" / "rank1.jsonl"
    with open(journal, "ab") as f:
        f.write(b'{"n": 8, "key": "x", "succ')
    before = journal.read_bytes()
    code, out, err = check(folder, capsys=capsys)
    assert code == 1
    assert out == [f"{journal}: a partial last line (26 bytes) (--repair drops it; a rerun "
                   "writes it again)"]
    assert err == [f"{folder.path}: 1 problem(s); 1 mendable with --repair"]
    assert journal.read_bytes() == before  # checking writes nothing


def test_a_deleted_journal_is_not_silently_ignored(folder, capsys):
    shutil.rmtree(folder.path / "journal")
    code, out, _ = check(folder, capsys=capsys)
    assert code == 1
    assert out == [f"{folder.path / 'journal'}: holds no run, yet the N* rows record 8: was "
                   "the journal deleted? (--repair restores them from the N* rows)",
                   f"{folder.path / 'README.md'}: not the card of what the folder holds "
                   "(tables with rows: nstar; --repair rewrites it)"]


def test_a_search_row_whose_runs_the_journal_lacks_is_named(folder, capsys):
    # One process's journal file lost: the other's search still finds its runs.
    (folder.path / "journal" / "rank1.jsonl").unlink()
    code, out, _ = check(folder, capsys=capsys)
    assert code == 1
    assert out == ["N* row s2 (modadd/acot_L3, lstm): 4 of its 4 runs are not in the journal "
                   "(--repair restores them from this row)"]


def test_a_run_that_differs_from_its_journal_row_is_reported_not_mended(folder, capsys):
    journal = folder.path / "journal" / "rank0.jsonl"
    rows = [json.loads(line) for line in journal.read_text().splitlines()]
    rows[0]["success"] = not rows[0]["success"]
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, _ = check(folder, "--repair", capsys=capsys)
    assert code == 1
    assert out == [f"N* row s1 (modadd/acot_L3, lstm): run {rows[0]['key']} differs from its "
                   "journal row in success"]


def test_repair_drops_torn_lines_restores_the_journal_and_the_card(folder, capsys, tmp_path):
    keys = journal_keys(folder)
    shutil.rmtree(folder.path / "journal")
    with open(folder.path / "nstar" / "rank0.jsonl", "ab") as f:
        f.write(b'{"key": "s3", "probes": "[{\\"n\\"')
    code, out, err = check(folder, "--repair", capsys=capsys)
    assert code == 0 and err == []
    assert out[-1] == f"{folder.path}: clean"
    assert all(line.startswith("repaired: ") for line in out[:-1])
    assert any("dropped a partial last line" in line for line in out)
    assert any("restored 8 run(s)" in line for line in out)
    assert journal_keys(folder) == keys
    # The card declares the journal again, and `datasets` loads it.
    rows = datasets.load_dataset(str(folder.path), "journal", split="train",
                                 cache_dir=str(tmp_path / "cache"))
    assert set(rows["key"]) == keys
    assert check(folder, capsys=capsys)[0] == 0


def test_a_card_that_declares_an_empty_table_is_reported_and_rewritten(folder, capsys):
    card = folder.path / "README.md"
    card.write_text(card.read_text().replace("config_name: journal", "config_name: kappa"))
    code, out, _ = check(folder, capsys=capsys)
    assert code == 1
    assert out == [f"{card}: not the card of what the folder holds (tables with rows: "
                   "nstar, journal; --repair rewrites it)"]
    code, out, _ = check(folder, "--repair", capsys=capsys)
    assert code == 0 and out == [f"repaired: {card}: rewritten from the folder's tables",
                                 f"{folder.path}: clean"]


@pytest.mark.parametrize("kind", ["missing", "not a results folder"])
def test_a_path_that_is_not_a_results_folder_is_a_usage_error(kind, tmp_path, capsys):
    path = tmp_path / "absent" if kind == "missing" else tmp_path
    with pytest.raises(SystemExit) as done:
        main([str(path)])
    _, err = capsys.readouterr()
    assert done.value.code == 2
    assert len(err.splitlines()) == 1 and err.startswith("hf-induction check: error: ")
    assert str(path) in err


@pytest.mark.slow
def test_a_rerun_with_nothing_to_train_drops_a_torn_line(tmp_path, capsys):
    from tests.runner.helpers import FAST, run_cli

    args = ["--dataset", "modadd", "--config", "acot_L3_m3", "--model", "dense_ssm", *FAST,
            "--out", str(tmp_path / "out")]
    assert run_cli(args).returncode == 0
    journal = tmp_path / "out" / "journal" / "rank0.jsonl"
    with open(journal, "ab") as f:
        f.write(b'{"n": 2, "ke')
    # Spawned: the line is what a user's terminal shows (in this process, pytest's log
    # capture would take it).
    again = run_cli(args, env_extra={"PYTHONUNBUFFERED": "1"})
    assert again.returncode == 0, again.stderr
    assert [line for line in again.stderr.splitlines() if "dropped" in line] == [
        f"{journal}: dropped a partial last line (12 bytes) left by an interrupted or damaged "
        "write; a rerun writes what they held again"]
    rows = datasets.load_dataset(str(tmp_path / "out"), "journal", split="train",
                                 cache_dir=str(tmp_path / "cache"))
    assert rows.num_rows == len(journal.read_text().splitlines())
    assert main([str(tmp_path / "out")]) == 0


# -- lines and files that are not a table's, a rerun's promise, a renamed folder -------------

def test_a_line_of_json_that_is_not_a_run_is_named_and_set_aside(folder, capsys, tmp_path):
    # check said "clean", and load_dataset(folder, "journal") failed on the line.
    journal = folder.path / "journal" / "rank0.jsonl"
    with open(journal, "a") as f:
        f.write('{"hello": "world"}\n{"key": "k", "n": "eight"}\n')
    code, out, _ = check(folder, capsys=capsys)
    assert code == 1
    assert out == [f"{journal}: 2 line(s) that are not journal rows (line 5: column(s) hello "
                   f"not of the table) (--repair moves them to "
                   f"{folder.path / 'set-aside' / 'journal'})"]
    code, out, _ = check(folder, "--repair", capsys=capsys)
    aside = folder.path / "set-aside" / "journal" / "rank0.jsonl"
    assert code == 0 and out == [f"repaired: {journal}: 2 line(s) that are not journal rows "
                                 f"moved to {aside}", f"{folder.path}: clean"]
    assert aside.read_text() == '{"hello": "world"}\n{"key": "k", "n": "eight"}\n'
    rows = datasets.load_dataset(str(folder.path), "journal", split="train",
                                 cache_dir=str(tmp_path / "cache"))
    assert set(rows["key"]) == journal_keys(folder) and rows.num_rows == 8


def test_a_file_that_is_not_a_tables_is_named_and_set_aside(folder, capsys, tmp_path):
    # A 2 GB sparse file there: check said "clean", and load_dataset hung reading it.
    stray = folder.path / "journal" / "big.jsonl"
    with open(stray, "wb") as f:
        f.truncate(64 << 20)
    code, out, _ = check(folder, capsys=capsys)
    assert code == 1
    assert out == [f"{stray}: not a file of the journal table ({64 << 20} bytes; its rows are "
                   "rank<r>.jsonl files, and load_dataset reads every *.jsonl there) (--repair "
                   f"moves it to {folder.path / 'set-aside' / 'journal'})"]
    check(folder, "--repair", capsys=capsys)
    moved = folder.path / "set-aside" / "journal" / "big.jsonl"
    assert not stray.exists() and moved.stat().st_size == 64 << 20  # moved, never deleted
    rows = datasets.load_dataset(str(folder.path), "journal", split="train",
                                 cache_dir=str(tmp_path / "cache"))
    assert rows.num_rows == 8
    assert check(folder, capsys=capsys)[0] == 0


@pytest.mark.parametrize("loss", ["torn line", "deleted journal"])
def test_a_rerun_restores_the_runs_its_search_rows_record(folder, loss, capsys):
    # The rerun said "a rerun writes what they held again", yet its finished searches trained
    # nothing, and check reported the runs missing until --repair.
    keys = journal_keys(folder)
    if loss == "torn line":
        journal = folder.path / "journal" / "rank0.jsonl"
        journal.write_bytes(journal.read_bytes()[:-20])
    else:
        shutil.rmtree(folder.path / "journal")
    ResultsFolder(folder.path)  # what every command that writes here opens first
    assert journal_keys(folder) == keys
    assert check(folder, capsys=capsys) == (0, [f"{folder.path}: clean"], [])


def test_a_folder_copied_under_another_name_is_not_damaged(folder, capsys, tmp_path):
    copy = tmp_path / "copied"
    shutil.copytree(folder.path, copy)
    assert check(ResultsFolder.existing(copy), capsys=capsys) == (0, [f"{copy}: clean"], [])


def test_what_a_repair_set_aside_is_not_pushed():
    from huggingface_hub.utils import filter_repo_objects

    from hf_induction.hub.push import RESULTS_IGNORE

    files = ["set-aside/journal/big.jsonl", "set-aside/journal/rank0.jsonl",
             "journal/rank0.jsonl"]
    assert list(filter_repo_objects(files, ignore_patterns=RESULTS_IGNORE)) == [files[2]]


def test_a_file_where_a_tables_folder_belongs_is_named_and_set_aside(folder, capsys):
    # check promised that --repair restores the journal, and --repair ended in a traceback.
    shutil.rmtree(folder.path / "journal")
    (folder.path / "journal").write_text("x\n")
    code, out, _ = check(folder, capsys=capsys)
    assert code == 1
    assert out[0] == (f"{folder.path / 'journal'}: a file where the journal table's folder "
                      f"belongs (2 bytes) (--repair moves it to "
                      f"{folder.path / 'set-aside' / 'journal'})")
    with pytest.raises(CorruptResults, match="a file where the journal table's folder belongs"):
        ResultsFolder(folder.path)  # a command that writes here says so in one line
    code, out, _ = check(folder, "--repair", capsys=capsys)
    assert code == 0 and out[-1] == f"{folder.path}: clean"
    moved = folder.path / "set-aside" / "journal" / "journal"
    assert out[0] == (f"repaired: {folder.path / 'journal'}: a file where the journal table's "
                      f"folder belongs; moved to {moved}")
    assert moved.read_text() == "x\n"
    assert len(journal_keys(folder)) == 8
