"""What the command lines say of themselves, as a wheel holds them: a version, each default
said once, examples laid out as written, no checkout script named where a wheel has none, and
the sweep the help points to shipped with the package."""

from __future__ import annotations

import re

import pytest

from hf_induction.commands import COMMANDS
from hf_induction.sweeps import shipped
from tests.runner.helpers import SCRIPT_COMMANDS, run_command


def help_text(name: str) -> str:
    result = run_command([name, "--help"])
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_version_is_the_package_s():
    from hf_induction import __version__

    result = run_command(["--version"])
    assert result.returncode == 0 and result.stdout == f"hf-induction {__version__}\n"


def test_a_boolean_flag_says_its_default_once():
    # "(default: on) (default: True)": the help's own words, then argparse's.
    text = " ".join(help_text("nstar").split())
    warm = text.split("--warm-start, --no-warm-start", 1)[1].split(" --", 1)[0]
    assert warm.count("(default:") == 1 and warm.endswith("(default: on)"), warm


def test_an_example_keeps_its_lines():
    # A backslash at a docstring's line end joined the lines into one run of spaces.
    text = help_text("build-datasets")
    assert "cot_L10_uniform \\\n        --out build/hub/induction-bias/modadd" in text
    assert not re.search(r"\S {3,}--out", text)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_help_names_what_a_wheel_lacks(name):
    text = help_text(name)
    # A checkout's scripts/*.py: a wheel runs them as hf-induction NAME.
    assert not [script for script in SCRIPT_COMMANDS if script in text], text
    assert "scripts/sweeps" not in text and "written by" not in text


def test_the_sweep_the_help_names_is_shipped(tmp_path, monkeypatch):
    assert "paper_grid" in shipped()
    monkeypatch.chdir(tmp_path)
    result = run_command(["estimate-grid", "--sweep", "paper_grid"])
    assert result.returncode == 0, result.stderr
    assert "| paper (Algorithm 1, full budgets) | gpt2 |" in result.stdout
    refused = run_command(["estimate-grid", "--sweep", "paper_grids"])
    assert refused.returncode == 2
    assert "paper_grids: no such file, and not a sweep the package ships (paper_grid)" \
        in refused.stderr
    folder = run_command(["estimate-grid", "--sweep", str(tmp_path)])
    assert folder.returncode == 2 and f"{tmp_path} is a folder, not a sweep file" in folder.stderr
