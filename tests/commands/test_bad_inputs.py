"""Bad input to the command lines: one line on stderr, exit 2, before anything is computed or
written. The output folder is checked by writing into it, every size is bounded before the
first step, and a bad YAML file is named with its line and column."""

import os
import stat
from pathlib import Path

import pytest

from tests.runner.helpers import run_command

CELL = ["--dataset", "modadd", "--config", "acot_L4_m3"]


def one_line_refusal(result, *expected: str) -> str:
    err = result.stderr.strip()
    assert result.returncode == 2, (result.returncode, err)
    assert len(err.splitlines()) == 1, err
    for text in expected:
        assert text in err, err
    assert "plan" not in result.stdout.lower() and not result.stdout.strip(), result.stdout
    return err


def executable_file(tmp_path: Path) -> Path:
    # A file with every permission bit: the old check asked os.access of the nearest existing
    # ancestor, and this one says "writable and searchable", yet no folder can be made in it.
    path = tmp_path / "a-file"
    path.write_text("not a folder\n")
    path.chmod(path.stat().st_mode | stat.S_IWUSR | stat.S_IXUSR)
    return path


# Every command that takes --out, with what else it needs to get as far as the folder.
OUT_COMMANDS = {
    "nstar": CELL,
    "build-datasets": ["--dataset", "modadd", "--configs", "acot_L4_m3"],
    "leaderboard": [],
    "report": [],
    "space": [],
    "heads": [],
}


@pytest.mark.parametrize("command", sorted(OUT_COMMANDS))
def test_an_out_folder_that_cannot_be_created_is_one_line_before_anything_runs(command,
                                                                               tmp_path):
    out = executable_file(tmp_path) / "results"
    result = run_command([command, *OUT_COMMANDS[command], "--out", str(out)])
    one_line_refusal(result, "--out", f"{out}: cannot write there")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc on this system")
def test_out_under_proc_is_refused_before_the_plan(tmp_path):
    result = run_command(["nstar", *CELL, "--out", "/proc/hf-induction-results"])
    one_line_refusal(result, "/proc/hf-induction-results: cannot write there")


def test_the_folder_check_leaves_nothing_behind_after_a_later_usage_error(tmp_path):
    out = tmp_path / "new" / "results"
    result = run_command(["nstar", *CELL, "--out", str(out), "--lrs", "0.1,x"])
    one_line_refusal(result, "--lrs")
    assert not (tmp_path / "new").exists()


def test_the_default_out_folder_is_checked_too(tmp_path, monkeypatch):
    # build/results, relative to where the command runs: here under a file.
    monkeypatch.chdir(tmp_path)
    Path("build").write_text("a file where the default folder would go\n")
    result = run_command(["nstar", *CELL])
    one_line_refusal(result, "build/results")
    assert os.listdir(tmp_path) == ["build"]


# -- names and numbers are ASCII; bad YAML is named with its line and column -----------------

@pytest.mark.parametrize("flags,expected", [
    (["--dataset", "modadd", "--config", "acot_L\uff15"], "non-ASCII character '\uff15'"),
    ([*CELL, "--batch-size", "\uff16\uff14"], "--batch-size"),
    ([*CELL, "--lrs", "1e-\u0663"], "--lrs"),
    ([*CELL, "--early-failure", "\uff15\uff10"], "--early-failure"),
    ([*CELL, "--device", "cuda:\uff10"], "--device"),
    ([*CELL, "--lengthgen", "--test-lengths", "\uff16..8"], "--test-lengths"),
], ids=["config", "batch-size", "lrs", "early-failure", "device", "test-lengths"])
def test_a_non_ascii_digit_is_refused_in_one_line(flags, expected, tmp_path):
    out = tmp_path / "results"
    one_line_refusal(run_command(["nstar", *flags, "--out", str(out)]), expected)
    assert not out.exists()


BROKEN_RECIPE = "max_steps: 5\nlrs: [1e-3, 1e-4\nseeds: 10\n"
BROKEN_SWEEP = "sweep:\n  - dataset: modadd\n   configs: [acot_L4_m3]\n    models: [lstm]\n"


@pytest.mark.parametrize("flag,text,where,expected", [
    ("--config-file", BROKEN_RECIPE, "line 3, column 6", "expected a YAML mapping of flag"),
    ("--sweep", BROKEN_SWEEP, "line 3, column 4", "expected a YAML mapping with a 'sweep:'"),
])
def test_bad_yaml_names_the_file_line_column_and_what_was_expected(flag, text, where,
                                                                    expected, tmp_path):
    path = tmp_path / "file.yaml"
    path.write_text(text)
    cell = CELL if flag == "--config-file" else []
    out = tmp_path / "results"
    one_line_refusal(run_command(["nstar", flag, str(path), *cell, "--out", str(out)]),
                     f"{path}, {where}: ", expected)
    assert not out.exists()


@pytest.mark.parametrize("length", ["5.7", "true", "'\uff15'"])
def test_a_sweep_length_is_a_yaml_integer(length, tmp_path):
    # int() took 5.7 as 5, true as 1 and a full-width five as 5, each recorded as acot_L5.
    path = tmp_path / "sweep.yaml"
    path.write_text("sweep:\n  - dataset: modadd\n    formats: [acot]\n"
                    f"    lengths: [{length}]\n    models: [dense_ssm]\n")
    one_line_refusal(run_command(["nstar", "--sweep", str(path), "--out",
                                  str(tmp_path / "out")]), "lengths: expected integers")


# -- every size bounded before compute --------------------------------------------------

def campaign(argv, tmp_path):
    """The campaign nstar would run (nothing trained, nothing written), or SystemExit."""
    from hf_induction.commands.nstar import build_parser, campaign_from_args, parse_args

    parser = build_parser()
    return campaign_from_args(parse_args(parser, [*argv, "--out", str(tmp_path / "out")]),
                              parser)


def refused(argv, tmp_path, capsys, *expected: str) -> str:
    with pytest.raises(SystemExit) as e:
        campaign(argv, tmp_path)
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1, err
    for text in expected:
        assert text in err, err
    assert not (tmp_path / "out").exists()
    return err


def test_a_batch_no_machine_holds_is_refused_before_any_compute(tmp_path, capsys):
    # The command: it ran 34 s, then died in an 8 GB allocation.
    refused(["--dataset", "modadd", "--config", "acot_L3_m2", "--model", "dense_ssm",
             "--batch-size", "1000000000"], tmp_path, capsys,
            "--batch-size 1000000000 exceeds", "dense_ssm on modadd/acot_L3_m2",
            "a training step keeps at least", "of RAM")


@pytest.mark.parametrize("gib", ["0.5", "2"])
def test_the_batch_bound_is_the_one_the_message_names(gib, tmp_path, capsys, monkeypatch):
    # The machine's memory set by hand: the largest batch named is accepted, one more is not,
    # and a stacked grid of 4 runs divides it by 4.
    import re

    monkeypatch.setenv("HF_INDUCTION_MEMORY_GIB", gib)
    cell = ["--dataset", "modadd", "--config", "acot_L20", "--model", "lstm",
            "--lrs", "0.01,0.02", "--seeds", "1,2"]
    err = refused([*cell, "--batch-size", "100000000"], tmp_path, capsys, f"{float(gib):.1f} GiB")
    bound = int(re.search(r"exceeds (\d+) for", err)[1])
    assert campaign([*cell, "--batch-size", str(bound)], tmp_path).train.batch_size == bound
    refused([*cell, "--batch-size", str(bound + 1)], tmp_path, capsys, f"exceeds {bound} ")
    stacked = refused([*cell, "--batch-size", str(bound), "--grid-mode", "stacked"], tmp_path,
                      capsys, "x 4 stacked runs")
    assert int(re.search(r"exceeds (\d+) for", stacked)[1]) == bound // 4


@pytest.mark.parametrize("flag", [["--n-max", "1000000000"],
                                  ["--n-start", "1000000000", "--max-steps", str(10 ** 12)],
                                  ["--ood", "1000000000"], ["--lengthgen", "1000000000"]],
                         ids=lambda flag: flag[0])
def test_a_training_set_no_machine_holds_is_refused(flag, tmp_path, capsys):
    # Z_5 at length 40 has 9e27 words: the pool does not cap a billion rows.
    refused(["--dataset", "modadd", "--config", "acot_L40", *flag], tmp_path, capsys,
            f"{flag[0]} 1000000000 exceeds", "training rows of 42 tokens")


def test_a_training_set_the_pool_caps_is_not_refused(tmp_path):
    # acot_L3_m2 has 8 words: a billion asked is the whole pool.
    built = campaign(["--dataset", "modadd", "--config", "acot_L3_m2", "--n-max",
                      "1000000000"], tmp_path)
    assert built.search.n_max == 1000000000


@pytest.mark.parametrize("value", ["lots", "0", "-1", "nan"])
def test_a_bad_memory_override_is_one_line(value, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_INDUCTION_MEMORY_GIB", value)
    refused(CELL, tmp_path, capsys, "HF_INDUCTION_MEMORY_GIB", "expected a number of GiB")


def test_build_datasets_refuses_a_train_size_no_machine_holds(tmp_path):
    out = tmp_path / "hub"
    result = run_command(["build-datasets", "--dataset", "modadd", "--configs", "acot_L40",
                          "--train-size", "1000000000", "--out", str(out)])
    one_line_refusal(result, "--train-size 1000000000 exceeds", "modadd/acot_L40")
    assert not out.exists()


# -- other bad input: each was accepted (and run, or written somewhere unasked) before -------

@pytest.mark.parametrize("flags,expected", [
    (["--seeds", "10,10"], "argument --seeds: '10,10' gives 10 more than once"),
    (["--lrs", "1e-3,0.001"], "argument --lrs: '1e-3,0.001' gives 0.001 more than once"),
    (["--model", "dense_ssm", "dense_ssm"], "--model names dense_ssm twice"),
    (["--n-start", "100", "--n-max", "10"], "--n-start 100 exceeds --n-max 10"),
    (["--out", ""], "argument --out: expected a folder, got an empty name"),
    (["--logging-dir", "/proc/hf-induction-runs"], "argument --logging-dir: "),
], ids=["seeds", "lrs", "model", "n-start", "empty-out", "logging-dir"])
def test_other_bad_input_is_one_line(flags, expected, tmp_path, monkeypatch):
    if "/proc" in " ".join(flags) and not Path("/proc/self").is_dir():
        pytest.skip("no /proc on this system")
    monkeypatch.chdir(tmp_path)
    argv = ["nstar", *CELL, "--out", str(tmp_path / "out"), *flags]
    one_line_refusal(run_command(argv), expected)
    assert os.listdir(tmp_path) == []


def test_one_cell_named_twice_is_refused(tmp_path):
    # The default modulus spelled out is the same cell.
    result = run_command(["nstar", "--dataset", "modadd", "--config", "acot_L4", "acot_L4_m5",
                          "--out", str(tmp_path / "out")])
    one_line_refusal(result, "--config names acot_L4_m5 twice (acot_L4 and acot_L4_m5 are one)")


@pytest.mark.parametrize("flags,expected", [
    (["--configs", "acot_L4_m3", "acot_L4_m3"], "--configs names acot_L4_m3 twice"),
    (["--configs", "acot_L4_m3", "--splits", "train", "train"], "--splits names train twice"),
    (["--configs", "acot_L4_m3", "--out", ""], "argument --out: expected a folder"),
], ids=["configs", "splits", "empty-out"])
def test_build_datasets_other_bad_input_is_one_line(flags, expected, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["build-datasets", "--dataset", "modadd", "--out", str(tmp_path / "hub"), *flags]
    one_line_refusal(run_command(argv), expected)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("key", ["kappa", "ood", "lengthgen", "search"])
def test_a_sweep_switch_is_a_yaml_boolean(key, tmp_path):
    # bool("false") is True: the quoted string would have turned the switch on.
    path = tmp_path / "sweep.yaml"
    path.write_text("sweep:\n  - dataset: modadd\n    configs: [acot_L4_m3]\n"
                    f"    models: [dense_ssm]\n    {key}: 'false'\n")
    one_line_refusal(run_command(["nstar", "--sweep", str(path), "--out",
                                  str(tmp_path / "out")]), f"{key} takes true or false")


# -- kappa's schedule, and estimate-grid's files ---------------------------------------------

def test_kappa_on_a_length_too_short_for_it_says_why(tmp_path):
    # The joint cell's error named the uniform law, which the command line never wrote.
    result = run_command(["nstar", "--dataset", "modadd", "--config", "acot_L1_m2", "--kappa",
                          "--out", str(tmp_path / "out")])
    one_line_refusal(result, "--kappa on acot_L1_m2 needs L >= 2", "the joint cell",
                     "acot_L1_m2 has L = 1")
    path = tmp_path / "sweep.yaml"
    path.write_text("sweep:\n  - dataset: modadd\n    configs: [acot_L1_m2]\n"
                    "    models: [dense_ssm]\n    kappa: true\n")
    one_line_refusal(run_command(["nstar", "--sweep", str(path), "--out",
                                  str(tmp_path / "out")]),
                     "sweep entry 0: kappa: true on acot_L1_m2 needs L >= 2")


@pytest.mark.parametrize("text,expected", [
    ("[1, 2]", "holds a JSON list, not the object of figures the device check writes"),
    ("{\"gpt2_run_steps_per_s\": [1]}", "a MODEL_run_steps_per_s figure is not a number"),
    ("{\"device\": \"H100\"}", "no MODEL_run_steps_per_s figure"),
    ("{", "Expecting property name"),
], ids=["list", "not-a-number", "no-figure", "bad-json"])
def test_estimate_grid_names_itself_and_the_bad_device_check(text, expected, tmp_path):
    # A list ended in an AttributeError; the other errors said "estimate_grid.py".
    path = tmp_path / "check.json"
    path.write_text(text)
    err = one_line_refusal(run_command(["estimate-grid", "--sweep", "paper_grid",
                                        "--device-check", str(path)]),
                           f"--device-check {path}: {expected}")
    assert err.startswith("hf-induction estimate-grid: error: "), err
