"""Shared folders, faults and bad input: two launches never train a run twice, every error is
one line before any compute, a rerun resumes."""

import collections
import json
import shutil
import signal
import subprocess
import sys
import time
import warnings

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_induction.commands.nstar import build_parser, campaign_from_args, parse_args
from hf_induction.results import CorruptLineWarning
from hf_induction.results.jsonl import read_jsonl
from tests.runner.helpers import FAST, NSTAR, ROOT, env, run_cli, run_script

# End to end: launches the command in processes of its own, signals them, fills disks.
pytestmark = pytest.mark.slow

CELLS = ["--dataset", "modadd", "--config", "acot_L3_m3", "acot_L4_m3", "--model", "dense_ssm"]
BASE = [*CELLS, *FAST]


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def journal_keys(out):
    """Keys of the journal's readable lines (a crash may leave half a line: not counted)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorruptLineWarning)
        return collections.Counter(r["key"] for f in sorted((out / "journal").glob("rank*.jsonl"))
                                   for r in read_jsonl(f))


def one_line_error(proc, code=2, *needles):
    err = proc.stderr.strip()
    assert proc.returncode == code, (proc.returncode, err[-2000:])
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


# -- bad input: one line, exit 2, nothing written, before any compute ---------------------------

@pytest.mark.parametrize("extra,needle", [
    (["--model", "hf:/nonexistent/model"], "--model hf:/nonexistent/model"),
    (["--device", "foo"], "is not a device"),
    (["--device", "cuda:7"], "cuda"),
    (["--data-seed", "-1"], "--data-seed"),
    (["--epsilon", "inf"], "--epsilon"),
    (["--epsilon", "nan"], "--epsilon"),
    (["--lrs", "0.1,inf"], "--lrs"),
    (["--lrs", "abc"], "comma-separated"),
    (["--push-to-hub", "bad repo id!!"], "not a Hub repo id"),
    (["--early-failure", "0"], "early failure must be"),
])
def test_bad_flags_are_one_line_before_anything_is_written(extra, needle, tmp_path):
    out = tmp_path / "out"
    proc = run_cli([*BASE, *extra, "--out", str(out)])
    one_line_error(proc, 2, needle)
    assert not out.exists()


def test_usage_errors_come_before_torch_is_imported(tmp_path):
    """Every input that can be checked without torch is: those errors take a second, not the
    ~10 s of importing torch and transformers beside a running campaign."""
    garbled = tmp_path / "garbled"
    garbled.mkdir()
    (garbled / "protocol.json").write_text("{")
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(yaml.safe_dump({"sweep": [
        {"dataset": "modadd", "formats": ["acot"], "lengths": [3], "models": []}]}))
    cases = [[*BASE, "--model", "hf:/nonexistent/model"], [*BASE, "--device", "foo"],
             [*BASE, "--model", "nonexistent"], [*BASE, "--out", str(garbled)],
             ["--sweep", str(sweep)], [*BASE, "--epsilon", "inf"]]
    code = (
        "import json, sys\n"
        "from hf_induction.commands.nstar import main\n"
        "seen = []\n"
        "for argv in json.loads(sys.argv[1]):\n"
        "    try:\n"
        "        main(argv + ['--out', sys.argv[2]] if '--out' not in argv else argv)\n"
        "    except SystemExit as e:\n"
        "        seen.append(e.code)\n"
        "print(json.dumps([seen, 'torch' in sys.modules, 'transformers' in sys.modules]))\n")
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(cases), str(tmp_path / "o")],
                          capture_output=True, text=True, env=env())
    seen, torch_imported, transformers_imported = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == [2] * len(cases), proc.stderr
    assert not torch_imported and not transformers_imported
    assert len(proc.stderr.strip().splitlines()) == len(cases), proc.stderr
    assert not (tmp_path / "o").exists()


def test_an_output_path_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "a-file"
    target.write_text("x")
    one_line_error(run_cli([*BASE, "--out", str(target)]), 2, "is a file")
    for script, args in (("build_datasets.py", ["--dataset", "modadd", "--configs", "acot_L3"]),
                         ("report.py", [str(ROOT / "results" / "first_campaign")])):
        proc = run_script(script, *args, "--out", str(target))
        one_line_error(proc, 2, "is a file")
    assert target.read_text() == "x"


@pytest.mark.parametrize("entry,needle", [
    ({"dataset": "modadd", "formats": ["acot"], "lengths": [3], "models": []}, "models"),
    ({"dataset": "modadd", "formats": "acot", "lengths": [3], "models": ["lstm"]}, "formats"),
    ({"dataset": "modadd", "formats": ["acot"], "lengths": 3, "models": ["lstm"]}, "lengths"),
])
def test_a_bad_sweep_entry_is_one_line(entry, needle, tmp_path):
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(yaml.safe_dump({"sweep": [entry]}))
    out = tmp_path / "out"
    one_line_error(run_cli(["--sweep", str(sweep), *FAST, "--out", str(out)]), 2,
                   f"{needle} must be a non-empty list")
    assert not out.exists()


def test_other_scripts_name_the_flag_at_fault(tmp_path):
    def script(name, *args):
        return run_script(name, *args)

    one_line_error(script("push.py", str(ROOT / "results" / "first_campaign"), "org/x",
                          "--max-retries", "-1"), 2, "--max-retries")
    one_line_error(script("build_datasets.py", "--dataset", "modadd", "--configs", "acot_L3",
                          "--out", str(tmp_path / "d"), "--seed", "-1"), 2, "--seed")
    assert not (tmp_path / "d").exists()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flags=st.dictionaries(
    st.sampled_from(["--max-steps", "--eval-every", "--batch-size", "--epsilon", "--lrs",
                     "--seeds", "--data-seed", "--rtol", "--n-start", "--n-max",
                     "--max-search-steps", "--threads", "--ood", "--early-failure"]),
    st.one_of(st.integers(-3, 10_000).map(str), st.floats(allow_nan=True).map(str),
              st.sampled_from(["", "x", "1,2", "1e-3,", "inf", "-0", "3,,4", "1e400"])),
    max_size=4))
def test_the_flag_grammar_never_escapes_as_a_traceback(flags, tmp_path, capsys):
    argv = [*BASE, "--out", str(tmp_path / "fuzz")]
    for flag, value in flags.items():
        argv += [flag, value] if value else [flag, ""]
    parser = build_parser()
    try:
        campaign_from_args(parse_args(parser, argv), parser)
    except SystemExit as e:
        assert e.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and err.startswith("hf-induction nstar: error:"), err
    assert not (tmp_path / "fuzz").exists()


# -- corrupt and unwritable folders -----------------------------------------------------------

def test_a_garbled_protocol_is_one_line_for_every_reader(tmp_path):
    out = tmp_path / "garbled"
    out.mkdir()
    (out / "protocol.json").write_text('{"train": {"max_steps": ')
    one_line_error(run_cli([*BASE, "--out", str(out)]), 2, "protocol.json is not valid JSON")
    assert sorted(p.name for p in out.iterdir()) == ["protocol.json"]  # no table made first
    for script, extra in (("kappa.py", []), ("report.py", ["--out", str(tmp_path / "r")])):
        one_line_error(run_script(script, str(out), *extra), 2, "not valid JSON")
    board = run_script("leaderboard.py", str(out), "--out", str(tmp_path / "b"))
    one_line_error(board, 1, "not valid JSON")


def test_readers_create_nothing_in_a_folder_they_read(tmp_path):
    out = tmp_path / "only-protocol"
    out.mkdir()
    (out / "protocol.json").write_text(json.dumps({"train": {}, "search": {}}))
    for script, extra in (("kappa.py", []), ("report.py", ["--out", str(tmp_path / "r")])):
        run_script(script, str(out), *extra)
    assert sorted(p.name for p in out.iterdir()) == ["protocol.json"]


def small_filesystem(path, *, size="96k", read_only=False):
    """A tmpfs at ``path``, or skip where the platform does not allow mounting."""
    path.mkdir()
    options = f"size={size}" + (",ro" if read_only else "")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: " + done.stderr.decode().strip())
    return path


@pytest.fixture
def mounts():
    mounted = []
    yield mounted
    for path in mounted:
        subprocess.run(["umount", str(path)], capture_output=True)


def test_a_full_disk_is_one_line_and_a_rerun_resumes(tmp_path, mounts):
    disk = small_filesystem(tmp_path / "disk", size="20k")
    mounts.append(disk)
    out = disk / "results"
    full = run_cli([*BASE, "--out", str(out)])
    err = one_line_error(full, 1, "a rerun resumes")
    assert "No space left" in err
    kept = journal_keys(out)
    # The same folder, moved to a disk with room: what landed is reused, the rest trained.
    roomy = tmp_path / "roomy"
    shutil.copytree(out, roomy)
    again = run_cli([*BASE, "--out", str(roomy)])
    assert again.returncode == 0, again.stderr
    after = journal_keys(roomy)
    assert set(kept) <= set(after) and all(v == 1 for v in after.values())


def test_a_read_only_output_is_refused_before_any_compute(tmp_path, mounts):
    ro = small_filesystem(tmp_path / "ro", read_only=True)
    mounts.append(ro)
    start = time.perf_counter()
    one_line_error(run_cli([*BASE, "--out", str(ro / "results")]), 2, "cannot write")
    assert time.perf_counter() - start < 30


def test_ctrl_c_and_sigterm_are_one_line_and_a_rerun_resumes(tmp_path):
    """Ctrl-C stops the launch, a second launch resumes and is stopped by SIGTERM, a third
    finishes: each stop is one line with its exit code, and no run is trained twice."""
    out = tmp_path / "interrupted"
    # Every run to its budget, so that the search is still running when the signal comes; one
    # cell, so that the rerun's rest of the search stays short.
    base = ["--dataset", "modadd", "--config", "acot_L4_m3", "--model", "dense_ssm", *FAST,
            "--early-failure", "off", "--max-steps", "200", "--n-start", "16"]
    journal = out / "journal" / "rank0.jsonl"
    seen = 0
    for signum, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        # As from a terminal: a shell's background job (`.ci/run &`) starts with SIGINT
        # ignored, and the child would inherit that and never see the Ctrl-C.
        proc = subprocess.Popen([sys.executable, NSTAR, *base, "--out", str(out)], env=env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.time() + 120
        while time.time() < deadline and not (
                journal.exists() and len(journal.read_text().splitlines()) > seen):
            time.sleep(0.05)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == code, err
        assert len(err.strip().splitlines()) == 1 and "a rerun resumes" in err
        stopped = journal_keys(out)
        assert all(v == 1 for v in stopped.values()), signum
        seen = len(journal.read_text().splitlines())
    again = run_cli([*base, "--out", str(out)])
    assert again.returncode == 0, again.stderr
    after = journal_keys(out)
    assert all(after[k] == 1 for k in after) and set(stopped) <= set(after)


def test_a_signal_swallowed_by_a_finalizer_still_ends_the_launch(tmp_path, monkeypatch):
    """SIGTERM raised inside a finalizer (Python ignores it there, with a traceback) is kept:
    the launch ends as terminated, in one line, once the campaign returns."""
    import hf_induction.runner.run as run
    from hf_induction.runner.signals import Terminated

    class RaisesOnCollection:
        def __del__(self):
            raise Terminated()

    def campaign_hit_in_a_finalizer(campaign):
        RaisesOnCollection()   # collected at once: the signal handler's raise, swallowed
        return run.CampaignResults()

    monkeypatch.setattr(run, "run_campaign", campaign_hit_in_a_finalizer)
    out, hook = tmp_path / "swallowed", sys.unraisablehook
    one_line_error(run_cli([*BASE, "--out", str(out)]), 143, "terminated", "rerun resumes")
    assert sys.unraisablehook is hook   # the process's own hook, put back


def test_a_signal_that_surfaces_as_a_librarys_error_still_ends_the_launch(tmp_path, monkeypatch):
    """Ctrl-C inside tqdm's write lock came back as tqdm's RuntimeError, the interrupt as its
    context: the launch still ends as interrupted, in one line."""
    import hf_induction.runner.run as run

    def campaign_interrupted_in_cleanup(campaign):
        try:
            raise KeyboardInterrupt()
        except KeyboardInterrupt:
            raise RuntimeError("cannot release un-acquired lock") from None

    monkeypatch.setattr(run, "run_campaign", campaign_interrupted_in_cleanup)
    one_line_error(run_cli([*BASE, "--out", str(tmp_path / "cleanup")]), 130, "interrupted",
                   "rerun resumes")


def test_a_garbled_journal_line_is_repaired_and_its_run_retrained(tmp_path):
    out = tmp_path / "garbled-journal"
    assert run_cli([*BASE, "--out", str(out)]).returncode == 0
    journal = out / "journal" / "rank0.jsonl"
    rows = journal.read_text().splitlines()
    victim = json.loads(rows[1])["key"]
    rows[1] = rows[1][: len(rows[1]) // 2]  # half a line, mid-file
    journal.write_text("\n".join(rows) + "\n")
    # The search rows are answered from the folder: drop them, so the runs are asked again.
    for f in (out / "nstar").glob("*.jsonl"):
        f.write_text("")
    again = run_cli([*BASE, "--out", str(out)])
    assert again.returncode == 0, again.stderr
    repaired = lines(journal)  # every line reads again
    keys = collections.Counter(r["key"] for r in repaired)
    assert keys[victim] == 1 and all(v == 1 for v in keys.values())
    assert len(repaired) == len(rows)


# -- two launches on one folder ---------------------------------------------------------------

def launch(args, out):
    return subprocess.Popen([sys.executable, NSTAR, *args, "--out", str(out)], env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


# Cold searches: a warm start's first size depends on which neighbours another launch has
# finished by then, so only cold searches train the same sizes under every layout.
KAPPA = [*BASE, "--kappa", "--no-warm-start"]


@pytest.fixture(scope="module")
def kappa_reference(tmp_path_factory):
    """The κ campaign of BASE run once, by one launch: what the other layouts must match."""
    reference = tmp_path_factory.mktemp("reference") / "results"
    done = run_cli([*KAPPA, "--out", str(reference)])
    assert done.returncode == 0, done.stderr[-2000:]
    return reference


def test_two_launches_at_once_train_every_run_once(tmp_path, kappa_reference):
    reference = kappa_reference
    shared = tmp_path / "shared"
    procs = [launch(KAPPA, shared) for _ in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    keys = journal_keys(shared)
    assert all(v == 1 for v in keys.values())
    assert set(keys) == set(journal_keys(reference))
    nstar = [r["key"] for f in (shared / "nstar").glob("*.jsonl") for r in lines(f)]
    assert len(nstar) == len(set(nstar)) == len(lines(reference / "nstar" / "rank0.jsonl"))


def test_of_two_protocols_launched_at_once_one_is_refused(tmp_path):
    # Two races (either launch may lose one); each costs two process starts.
    for attempt in range(2):
        out = tmp_path / f"race{attempt}"
        # The winner's search is not what is tested: one cell and a few steps keep it short.
        procs = [launch([*CELLS[:4], *CELLS[5:], *FAST, "--max-steps", "5", "--seeds", seeds],
                        out)
                 for seeds in ("10,20", "10,20,30")]
        codes = [p.wait(timeout=600) for p in procs]
        assert sorted(codes) == [0, 2], codes
        protocol = json.loads((out / "protocol.json").read_text())
        winner = procs[codes.index(0)]
        assert len(protocol["train"]["seeds"]) == (2 if winner is procs[0] else 3)


def test_two_dataset_builds_into_one_folder_keep_every_config(tmp_path):
    out = tmp_path / "modadd"
    builds = [subprocess.Popen([sys.executable, str(ROOT / "scripts" / "build_datasets.py"),
                                "--dataset", "modadd", "--configs", *configs, "--out", str(out),
                                "--train-size", "50"], env=env(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
              for configs in (["acot_L3", "cot_L3"], ["outcome_L3", "acot_L4"])]
    for build in builds:
        _, err = build.communicate(timeout=300)
        assert build.returncode == 0, err
    info = json.loads((out / "build_info.json").read_text())
    assert set(info) == {"acot_L3", "cot_L3", "outcome_L3", "acot_L4"}
    card = (out / "README.md").read_text()
    assert all(f"config_name: {name}" in card for name in info)


def test_kappa_rows_carry_the_code_commit(kappa_reference):
    out = kappa_reference
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()
    kappa = lines(out / "kappa" / "rank0.jsonl")
    assert commit and kappa and all(r["git_commit"] == commit for r in kappa)
