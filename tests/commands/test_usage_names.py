"""Every command names itself as a user calls it after ``pip install``: ``hf-induction NAME``,
in its usage line and in the README's first command (which must run from a wheel as well as
from a checkout, so it may not name a checkout's ``scripts/*.py``)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from hf_induction.commands import COMMANDS, main

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_usage_line_names_the_console_command(name, capsys):
    with pytest.raises(SystemExit) as done:
        main([name, "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: hf-induction {name} ")


def readme_main_command() -> list[str]:
    """The README's first command, less its installs: what runs after the last ``&&``."""
    block = README.read_text(encoding="utf-8").split("```bash", 1)[1].split("```", 1)[0]
    first = next(line for line in block.splitlines() if line and not line.startswith("#"))
    return shlex.split(first.rsplit("&&", 1)[1])


def test_the_readme_main_command_is_the_console_script_and_parses():
    command = readme_main_command()
    assert command[:2] == ["hf-induction", "nstar"], command
    assert not any(re.search(r"scripts/\w+\.py", arg) for arg in command)
    # Its flags parse as the command's own (argparse exits 2 on any it does not know).
    from hf_induction.commands.nstar import build_parser

    args = build_parser().parse_args(command[2:])
    assert args.kappa and args.model == ["dense_ssm"]
