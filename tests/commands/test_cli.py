"""The nstar.py command line: errors, a tiny end-to-end search, resume, and rerun."""

import json
import time
import uuid

import datasets
import pytest

from hf_induction.commands.nstar import main
from tests.runner.helpers import FAST, run_cli

# End to end: whole searches, a killed one resumed, two processes.
pytestmark = pytest.mark.slow


def load_results(out, table):
    return datasets.load_dataset(str(out), table, split="train")


def fresh(tmp_path):
    # A name never used before: with HF_HUB_OFFLINE=1, `datasets` may serve a cached dataset
    # of another folder with the same name (say "results") in place of this one.
    return tmp_path / f"results-{uuid.uuid4().hex[:12]}"


BASE = ["--dataset", "modadd", "--config", "acot_L4_m3", "--model", "dense_ssm", *FAST]


@pytest.mark.parametrize("args,allowed", [
    (["--dataset", "tiles", "--config", "acot_L5"], "modadd"),
    (["--dataset", "modadd", "--config", "acot_L0"], "{format}_L{L}"),
    (["--dataset", "modadd", "--config", "acot_L5", "--model", "rnn"], "dense_ssm"),
    (["--dataset", "modadd", "--config", "acot_L5", "--preset", "huge"], "paper"),
    (["--dataset", "modadd", "--config", "acot_L5", "--search", "linear"], "refined"),
    (["--dataset", "modadd", "--config", "acot_L5", "--lrs", "0.1,x"], "lrs"),
    (["--dataset", "modadd", "--config", "acot_L5", "--max-steps", "0"], "--max-steps"),
    # Every size asked refuses 0, and every number names its bound and why.
    *[(["--dataset", "modadd", "--config", "acot_L5", *flag], name)
      for flag, name in [(["--ood", "0"], "--ood"), (["--lengthgen", "0"], "--lengthgen"),
                         (["--n-start", "0"], "--n-start"), (["--n-max", "0"], "--n-max"),
                         (["--batch-size", "0"], "--batch-size"),
                         (["--eval-every", "0"], "--eval-every"),
                         (["--max-search-steps", "0"], "--max-search-steps"),
                         (["--batch-size", "99999999999"], "exceeds 1610612736 (a split holds"),
                         (["--seeds", "10,-1"], "--seeds"), (["--rtol", "nan"], "--rtol"),
                         (["--data-seed", str(2 ** 63)], "exceeds 9223372036854775807"),
                         (["--threads", "100000"], "this machine's cores")]],
    # Config names past what can be drawn or embedded: one line, before anything is written.
    (["--dataset", "modadd", "--config", "acot_L100000"], "L = 100000 exceeds 3071"),
    (["--dataset", "modadd", "--config", "acot_L5_m100000000"], "m = 100000000 exceeds"),
    (["--dataset", "copy", "--config", "UF_L5_V10000000"], "V = 10000000 exceeds"),
    (["--dataset", "retrieval", "--config", "UR_L100000"], "L = 100000 exceeds"),
    (["--dataset", "modadd", "--config", "acot_L5", "--bogus"], "bogus"),
    (["--dataset", "modadd", "--config", "acot_L5", "--threads", "0"], "--threads"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(args, allowed, tmp_path, capsys):
    out = tmp_path / "results"
    with pytest.raises(SystemExit) as e:
        main([*args, "--out", str(out)])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and allowed in err
    assert not out.exists()


def test_search_end_to_end_then_rerun_trains_nothing(tmp_path):
    out = fresh(tmp_path)
    first = run_cli([*BASE, "--out", str(out)])
    assert first.returncode == 0, first.stderr
    assert "acot_L4_m3" in first.stdout and "N* lies in" in first.stdout
    # The plan comes first: the search, the model's resolved budget, a measured time bound.
    plan = first.stdout.split("\n  dense_ssm modadd/")[0]
    assert plan.startswith("Plan: 1 search over 1 process")
    assert "lr {0.03} × seed {10, 20} (grid 2), 120 steps a run" in plan
    assert "ms a grid step (measured now); at most" in plan
    nstar = load_results(out, "nstar")
    assert nstar.num_rows == 1
    row = nstar[0]
    assert row["model"] == "dense_ssm" and row["config"] == "acot_L4_m3"
    probes = json.loads(row["probes"])
    assert row["num_probes"] == len(probes) >= 2
    assert row["total_steps"] == sum(p["steps"] for p in probes)
    if row["n_star"] is not None:
        assert row["largest_failing"] < row["n_star"]
    journal = (out / "journal" / "rank0.jsonl").read_text().splitlines()
    assert len(journal) == sum(len(p["runs"]) for p in probes)
    # A rerun answers from the folder: no new journal line, no new search row.
    second = run_cli([*BASE, "--out", str(out)])
    assert second.returncode == 0, second.stderr
    assert (out / "journal" / "rank0.jsonl").read_text().splitlines() == journal
    assert load_results(out, "nstar").num_rows == 1


def test_other_protocol_is_refused_unless_forced(tmp_path):
    out = tmp_path / "results"
    assert run_cli([*BASE, "--out", str(out), "--max-steps", "20"]).returncode == 0
    refused = run_cli([*BASE, "--out", str(out), "--max-steps", "40"])
    assert refused.returncode == 2
    assert "max_steps" in refused.stderr and "--force" in refused.stderr
    assert run_cli([*BASE, "--out", str(out), "--max-steps", "40", "--force"]).returncode == 0


def test_killed_search_resumes_without_repeating_a_run(tmp_path):
    import subprocess
    import sys

    from tests.runner.helpers import NSTAR, env

    args = [*BASE, "--kappa"]
    reference = run_cli([*args, "--out", str(tmp_path / "whole")])
    assert reference.returncode == 0, reference.stderr
    out = tmp_path / "resumed"
    journal = out / "journal" / "rank0.jsonl"
    proc = subprocess.Popen([sys.executable, NSTAR, *args, "--out", str(out)], env=env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        if journal.exists() and len(journal.read_text().splitlines()) >= 5:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the search ended before it could be interrupted"
    proc.kill()
    proc.wait()
    interrupted = len(journal.read_text().splitlines())
    resumed = run_cli([*args, "--out", str(out)])
    assert resumed.returncode == 0, resumed.stderr

    def keyed(folder, table):
        rows = [json.loads(line) for line in
                (folder / table / "rank0.jsonl").read_text().splitlines() if line.strip()]
        return {r["key"]: r for r in rows}, len(rows)

    runs, lines = keyed(out, "journal")
    assert lines == len(runs) > interrupted, "a training run was repeated"
    whole_runs, _ = keyed(tmp_path / "whole", "journal")
    assert set(runs) == set(whole_runs)
    for table in ("nstar", "kappa"):
        got, _ = keyed(out, table)
        want, _ = keyed(tmp_path / "whole", table)
        for key in want:
            for field in ("n_star", "largest_failing", "kappa", "nstar_joint"):
                if field in want[key]:
                    assert got[key][field] == want[key][field], (table, field)


def test_two_processes_split_the_searches(tmp_path):
    import shutil
    import subprocess

    from tests.runner.helpers import NSTAR, env

    torchrun = shutil.which("torchrun")
    if torchrun is None:
        pytest.skip("torchrun is not on PATH")
    out = tmp_path / "results"
    cmd = [torchrun, "--standalone", "--nproc_per_node", "2", NSTAR, "--dataset",
           "modadd", "--config", "acot_L3_m3", "--model", "dense_ssm", "--kappa", *FAST,
           "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env(), timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    per_rank = {r: (out / "nstar" / f"rank{r}.jsonl").read_text().splitlines() for r in (0, 1)}
    # Three searches (n = 2, 3 and the joint cell) split over the two processes.
    assert sorted(len(lines) for lines in per_rank.values()) == [1, 2]
    assert (out / "journal" / "rank1.jsonl").exists()
    # Only the main process reports, once, and only it writes kappa.
    table_rows = [line for line in done.stdout.splitlines() if line.startswith("| modadd")]
    assert len(table_rows) == 4  # three N* rows and one kappa row
    assert done.stdout.count("Plan: 3 searches over 2 processes") == 1
    rank1_kappa = out / "kappa" / "rank1.jsonl"
    assert not rank1_kappa.exists() or not rank1_kappa.read_text().strip()
    assert len((out / "kappa" / "rank0.jsonl").read_text().splitlines()) == 1


def test_ood_check_is_recorded_and_reused(tmp_path):
    out = fresh(tmp_path)
    args = [*BASE, "--out", str(out), "--ood"]
    first = run_cli(args)
    assert first.returncode == 0, first.stderr
    assert "Out of distribution" in first.stdout
    ood = load_results(out, "ood")
    assert ood.num_rows == 1
    row = ood[0]
    assert row["test_length"] == 8 and row["config"] == "acot_L4_m3"
    # 81 words of length 4 less 16 for validation: the largest size is the whole pool.
    assert row["n"] == 65
    for name in ("normalised_state_accuracy", "normalised_final_state_accuracy"):
        assert -0.5 - 1e-9 <= row[name] <= 1.0 + 1e-9  # chance 1/3 maps to 0, floor -1/2
    assert run_cli(args).returncode == 0
    assert load_results(out, "ood").num_rows == 1


def test_sweep_file_runs_as_one_campaign(tmp_path):
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text("sweep:\n"
                     "  - {dataset: modadd, formats: [acot], lengths: [3], groups: [3],\n"
                     "     models: [dense_ssm]}\n"
                     "  - {dataset: permutation, formats: [outcome], lengths: [2], groups: [3],\n"
                     "     models: [dense_ssm]}\n")
    out = fresh(tmp_path)
    done = run_cli(["--sweep", str(sweep), *FAST, "--out", str(out)])
    assert done.returncode == 0, done.stderr
    rows = load_results(out, "nstar")
    assert sorted(zip(rows["dataset"], rows["config"], strict=True)) == [
        ("modadd", "acot_L3_m3"), ("permutation", "outcome_L2_S3")]


@pytest.mark.parametrize("args", [[], ["--dataset", "modadd", "--config", "acot_L5",
                                       "--sweep", "x.yaml"]])
def test_sweep_or_cells_but_not_both(args, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main([*args, "--out", str(tmp_path / "r")])
    assert e.value.code == 2 and "--sweep" in capsys.readouterr().err
