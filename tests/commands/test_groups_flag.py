"""``--groups FILE``: a group from generators named by a config, recorded in the results
folder (groups.yaml) so that a rerun resumes without the flag and any reader parses its rows;
a file that defines a recorded name otherwise is one line, exit 2."""

import subprocess
import sys

import pytest

from hf_induction.commands.nstar import main
from hf_induction.results import ResultsFolder
from hf_induction.results.rows import NstarRow
from hf_induction.tasks import group_names

FAST = ["--max-steps", "20", "--eval-every", "10", "--lrs", "0.03", "--seeds", "10",
        "--n-start", "2", "--no-progress"]


def test_a_group_from_generators_runs_and_travels_with_its_folder(tmp_path, capsys):
    groups = tmp_path / "groups.yaml"
    groups.write_text("Frob20: [[1, 2, 3, 4, 0], [0, 2, 4, 1, 3]]\n")
    out = tmp_path / "results"
    args = ["--dataset", "group", "--config", "acot_L2_Frob20", "--model", "dense_ssm", *FAST,
            "--out", str(out)]
    assert main([*args, "--groups", str(groups)]) == 0
    assert "Frob20" in (out / "groups.yaml").read_text()
    [row] = ResultsFolder(out, write=False).read(NstarRow)
    assert (row.alphabet_size, row.group_order, row.solvable) == (20, 20, True)
    # A rerun without the flag resumes from the folder: nothing is trained again.
    trained = len(ResultsFolder(out, write=False).read_journal())
    assert main(args) == 0
    assert len(ResultsFolder(out, write=False).read_journal()) == trained
    # A fresh process that only reads the folder parses its rows (the groups come with it).
    code = ("import sys; from hf_induction.results import NstarRow, ResultsFolder; "
            "print(ResultsFolder(sys.argv[1], write=False).read(NstarRow)[0].variant)")
    shown = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True,
                           text=True, check=True)
    assert shown.stdout.strip() == "Frob20"


def test_a_file_that_redefines_a_recorded_group_is_refused(tmp_path, capsys):
    group_names.register_group("Cyc4", [[1, 2, 3, 0]])
    other = tmp_path / "other.yaml"
    other.write_text("Cyc4: [[1, 0, 3, 2], [2, 3, 0, 1]]\n")
    with pytest.raises(SystemExit) as e:
        main(["--dataset", "group", "--config", "acot_L2_Cyc4", "--groups", str(other),
              "--out", str(tmp_path / "results")])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and "Cyc4 is already registered with other generators" in err[-1]


@pytest.mark.parametrize("text, words", [
    ("Odd: [[1, 1]]\n", "generator [1, 1] is not a permutation"),
    ("Odd: [[1, 0]\n", "line 2"),
    ("- [1, 0]\n", "expected a YAML mapping of group name"),
    # A degree of 1,000,000 ended in a MemoryError after 84 s; 5,000 closed after seconds.
    (f"Odd: [[{', '.join(map(str, [*range(1, 5000), 0]))}]]\n",
     "list 5000 points in all, more than 4096"),
])
def test_a_bad_groups_file_is_one_line(tmp_path, capsys, text, words):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(SystemExit) as e:
        main(["--dataset", "group", "--config", "acot_L2_Odd", "--groups", str(bad),
              "--out", str(tmp_path / "results")])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and words in err[-1] and str(bad) in err[-1]
