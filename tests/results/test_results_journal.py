"""The journal: durable appends, resume lookups, several ranks, crash tolerance."""

import logging
import os

import pytest

from hf_induction.results import CorruptLineWarning, ResultsFolder, run_key, stable_hash


def _key(n, lr=1e-3, seed=10):
    return run_key(kind="run", dataset="modadd", config="acot_L5", model="lstm", n=n, lr=lr,
                   seed=seed, protocol="p0")


def test_append_then_read_back_and_find(tmp_path):
    folder = ResultsFolder(tmp_path)
    stored = folder.append_run(_key(8), {"n": 8, "success": True, "best_val_loss": 1e-5})
    folder.append_run(_key(16), {"n": 16, "success": False, "best_val_loss": float("nan")})
    assert stored["key"] == _key(8)
    rows = folder.read_journal()
    assert [r["n"] for r in rows] == [8, 16]
    # Strict JSON: a diverged loss is stored as null.
    assert rows[1]["best_val_loss"] is None
    assert folder.find_run(_key(8))["success"] is True
    assert folder.find_run(_key(32)) is None
    # The index, once built, follows this process's appends.
    folder.append_run(_key(32), {"n": 32})
    assert folder.find_run(_key(32))["n"] == 32


def test_a_rerun_finds_what_the_first_run_recorded(tmp_path):
    ResultsFolder(tmp_path).append_run(_key(8), {"n": 8})
    rerun = ResultsFolder(tmp_path)
    assert rerun.find_run(_key(8)) == {"n": 8, "key": _key(8)}


def test_each_rank_writes_its_own_file_and_reads_all(tmp_path):
    r0, r1 = ResultsFolder(tmp_path, rank=0), ResultsFolder(tmp_path, rank=1)
    r1.append_run(_key(2), {"n": 2})
    r0.append_run(_key(1), {"n": 1})
    assert sorted(p.name for p in (tmp_path / "journal").iterdir()) == ["rank0.jsonl",
                                                                       "rank1.jsonl"]
    assert [r["n"] for r in r0.read_journal()] == [1, 2]
    assert r0.find_run(_key(2))["n"] == 2
    # Rows another process (or launch) appends later are seen at the next lookup: the index
    # reads what the files gained since.
    r1.append_run(_key(3), {"n": 3})
    assert r0.find_run(_key(3))["n"] == 3
    # A line still being written (no newline yet) waits for the next lookup.
    with open(tmp_path / "journal" / "rank1.jsonl", "ab") as f:
        f.write(b'{"key": "late", "n": 4')
    assert r0.find_run("late") is None
    with open(tmp_path / "journal" / "rank1.jsonl", "ab") as f:
        f.write(b"}\n")
    assert r0.find_run("late")["n"] == 4


def test_record_with_another_key_is_refused(tmp_path):
    with pytest.raises(ValueError):
        ResultsFolder(tmp_path).append_run("a", {"key": "b"})


def test_a_truncated_last_line_is_skipped_by_readers_and_dropped_by_a_writer(tmp_path, caplog):
    folder = ResultsFolder(tmp_path)
    folder.append_run(_key(1), {"n": 1})
    folder.append_run(_key(2), {"n": 2})
    # A process killed mid-write leaves half a line without its newline.
    journal = tmp_path / "journal" / "rank0.jsonl"
    torn = b'{"n": 4, "key": "abc", "best_val'
    with open(journal, "ab") as f:
        f.write(torn)
    reader = ResultsFolder(tmp_path, write=False)
    with pytest.warns(CorruptLineWarning, match="unterminated"):
        assert [r["n"] for r in reader.read_journal()] == [1, 2]
    assert journal.read_bytes().endswith(torn)  # reading mends nothing
    # Opening to write mends it at once, before anything is trained, and says so in one line.
    with caplog.at_level(logging.WARNING):
        rerun = ResultsFolder(tmp_path)
    (said,) = [r.getMessage() for r in caplog.records]
    assert said.startswith(f"{journal}: dropped a partial last line ({len(torn)} bytes)")
    assert "\n" not in said
    assert [r["n"] for r in rerun.read_journal()] == [1, 2]
    rerun.append_run(_key(4), {"n": 4})
    assert [r["n"] for r in ResultsFolder(tmp_path).read_journal()] == [1, 2, 4]


def test_a_torn_line_of_another_rank_is_dropped_when_rank_0_opens(tmp_path, caplog):
    ResultsFolder(tmp_path, rank=1).append_run(_key(1), {"n": 1})
    journal = tmp_path / "journal" / "rank1.jsonl"
    with open(journal, "ab") as f:
        f.write(b'{"n": 2, "ke')
    with caplog.at_level(logging.WARNING):
        ResultsFolder(tmp_path)
    assert [f"{journal}: dropped a partial last line (12 bytes)" in r.getMessage()
            for r in caplog.records] == [True]
    assert journal.read_bytes().endswith(b"}\n")


def test_a_garbled_middle_line_is_skipped_with_a_warning(tmp_path, caplog):
    folder = ResultsFolder(tmp_path)
    folder.append_run(_key(1), {"n": 1})
    with open(tmp_path / "journal" / "rank0.jsonl", "ab") as f:
        f.write(b"\x00\x00garbage\n[1, 2]\n")
    folder.append_run(_key(2), {"n": 2})
    with pytest.warns(CorruptLineWarning):
        rows = ResultsFolder(tmp_path, write=False).read_journal()
    assert [r["n"] for r in rows] == [1, 2]
    with caplog.at_level(logging.WARNING):
        assert [r["n"] for r in ResultsFolder(tmp_path).read_journal()] == [1, 2]
    assert "dropped 2 garbled line(s) (17 bytes)" in caplog.records[0].getMessage()


def test_appends_are_fsynced(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    ResultsFolder(tmp_path).append_run(_key(1), {"n": 1})
    assert synced


def test_run_key_is_stable_and_order_free():
    a = run_key(dataset="modadd", n=8, lr=0.001, seed=10)
    assert a == run_key(seed=10, lr=1e-3, n=8, dataset="modadd")
    assert a != run_key(dataset="modadd", n=9, lr=0.001, seed=10)
    assert len(a) == 16 and a == stable_hash({"dataset": "modadd", "n": 8, "lr": 0.001,
                                              "seed": 10})
    assert stable_hash({"grid": (1, 2)}) == stable_hash({"grid": [1, 2]})
