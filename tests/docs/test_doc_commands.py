"""Every shell command in the README and the documentation pages (``docs/**/*.md``) is run here
at a small size, or carries a marker that says what it needs which a test does not have.

A marker is a comment at the end of the command (``# needs: gpu``, ``# needs: hub``,
``# needs: checkout``, several as ``# needs: hub, gpu``; ``# long: why``), or the first line of
its block, for every command of the block. The commands run in order, README first, in one
working folder, as a reader would run them: a results folder one command writes is the
folder a later one reads. ``nstar`` trains once, at the README's main command with small
flags; every other ``nstar`` (and every command run through a launcher, or marked) is parsed
by the command's own parser, from the repository root, with its ``--out`` sent to a
temporary folder. Each command of the package named is checked that way, whatever its
marker.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from hf_induction.commands import COMMANDS
from hf_induction.commands.parsing import Parser
from tests.runner.helpers import SCRIPT_COMMANDS, env, run_command

# End to end: every documented command, run.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
CI = ROOT / ".ci" / "run"

MARKER = re.compile(r"#\s*(needs|long):\s*(.*)$")
NEEDS = ("gpu", "hub", "checkout")
BLOCK = re.compile(r"^( *)```bash\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
# Small enough that the README's κ job (three searches) trains in seconds; appended, so they
# win over the page's own values.
SMALL = {"nstar": ["--max-steps", "20", "--eval-every", "10", "--n-start", "2", "--n-max", "4",
                   "--seeds", "10", "--no-progress"],
         "build-datasets": ["--train-size", "50"]}
# Commands that are run once for real; later ones are parsed.
RUN_ONCE = ("nstar",)
INSTALLERS = ("pip install", "pip wheel")


@dataclass(frozen=True)
class Command:
    page: str
    line: int
    text: str              # the shell text, continuation lines joined, its marker removed
    marker: tuple[str, str] | None   # (kind, what), e.g. ("needs", "gpu")
    names: dict            # variables the block assigns before it (NAME="value")

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def _marker(comment_line: str) -> tuple[str, str] | None:
    found = MARKER.search(comment_line)
    return None if found is None else (found.group(1), found.group(2).strip())


def _strip_comment(text: str) -> tuple[str, tuple[str, str] | None]:
    """The command without its trailing ``# ...`` comment (outside quotes), and its marker."""
    quote = None
    for k, char in enumerate(text):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (k == 0 or text[k - 1].isspace()):
            return text[:k].rstrip(), _marker(text[k:])
    return text, None


def _open_quote(text: str) -> bool:
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return True
    return False


def _commands(page: Path) -> list[Command]:
    """The commands of every ```bash block of ``page``: continuation lines joined, a heredoc
    or a ``for ... done`` loop taken as one command."""
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(ROOT).as_posix()
    found = []
    for block in BLOCK.finditer(text):
        indent, body = len(block.group(1)), block.group(2)
        first = text[: block.start(2)].count("\n") + 1
        lines = [line[indent:] for line in body.splitlines()]
        block_marker = _marker(lines[0]) if lines and lines[0].startswith("#") else None
        names: dict[str, str] = {}
        k = 0
        while k < len(lines):
            start, line = k, lines[k]
            k += 1
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            # A continued line, or a quoted argument over several lines (python -c "...").
            while (line.endswith("\\") or _open_quote(line)) and k < len(lines):
                line = line[:-1] + " " + lines[k].strip() if line.endswith("\\") else (
                    line + "\n" + lines[k])
                k += 1
            heredoc = re.search(r"<<-?'?(\w+)'?", line)
            ends = heredoc.group(1) if heredoc else "done" if line.startswith("for ") else None
            if ends:
                while k < len(lines) and not lines[k].strip().startswith(ends):
                    k += 1
                line, k = line + " ...", k + 1
            command, marker = _strip_comment(line)
            assignment = re.fullmatch(r'([A-Z_]+)="([^"$]*)"', command)
            if assignment:
                names[assignment.group(1)] = assignment.group(2)
                continue
            found.append(Command(name, first + start, command, marker or block_marker,
                                 dict(names)))
    return found


COMMANDS_IN_DOCS = [c for page in PAGES for c in _commands(page)]


def _package_command(words: list[str]) -> tuple[str, list[str]] | None:
    """(command name, its arguments) where ``words`` run one of the package's commands:
    ``hf-induction NAME``, ``-m hf_induction NAME`` or a checkout's ``scripts/NAME.py``,
    directly or through a launcher (accelerate, torchrun, srun)."""
    for k, word in enumerate(words):
        if word == "hf-induction" and k + 1 < len(words):
            return words[k + 1], words[k + 2:]
        if word == "-m" and words[k + 1: k + 2] == ["hf_induction"]:
            return words[k + 2], words[k + 3:]
        if word.startswith("scripts/") and Path(word).name in SCRIPT_COMMANDS:
            return SCRIPT_COMMANDS[Path(word).name], words[k + 1:]
    return None


class _Parsed(Exception):
    pass


def _parse_check(name: str, args: list[str], tmp: Path, monkeypatch) -> None:
    """Parse ``hf-induction NAME ARGS`` with the command's own parser and stop there: from the
    repository root (so a sweep or a published folder it names is found), its --out sent to
    ``tmp``."""
    assert name in COMMANDS, f"{name!r} is not a command; allowed: {sorted(COMMANDS)}"
    args = [str(tmp / "out") if k and args[k - 1] == "--out" else a for k, a in enumerate(args)]
    parse = Parser.parse_args

    def parse_then_stop(parser, tokens=None, namespace=None):
        parsed = parse(parser, tokens, namespace)
        # A recipe or a sweep's budget comes before the command line's own flags.
        if tokens is not None and list(tokens)[len(tokens) - len(args):] == args:
            raise _Parsed
        return parsed

    monkeypatch.setattr(Parser, "parse_args", parse_then_stop)
    monkeypatch.chdir(ROOT)
    with pytest.raises(_Parsed):
        outcome = run_command([name, *args])
        # Reached only when the parser refused the line (or never saw it).
        pytest.fail(f"hf-induction {name} did not parse: {outcome.stderr.strip()}")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """The reader's working folder, shared by every command in order."""
    return tmp_path_factory.mktemp("reader")


ALREADY_RUN: set[str] = set()


def _check_marker(command: Command) -> None:
    kind, what = command.marker
    if kind == "long":
        assert what, f"{command}: '# long:' says why"
        return
    # "hub, gpu (why)": the names before the reason.
    named = [w.strip() for w in re.match(r"[\w\s,]*", what).group(0).split(",")]
    assert named and set(named) <= set(NEEDS), (
        f"{command}: '# needs: {what}'; allowed: {', '.join(NEEDS)}, or several of them")


@pytest.mark.parametrize("command", COMMANDS_IN_DOCS, ids=str)
def test_the_documented_command_runs_or_says_what_it_needs(command, workdir, tmp_path,
                                                           monkeypatch):
    if command.marker is not None:
        _check_marker(command)
    for piece in (p.strip() for p in command.text.split("&&")):
        if piece.startswith(INSTALLERS):
            continue
        if piece.startswith("python -m pytest"):
            # The test suite itself: it is what CI runs, word for word.
            assert command.text in CI.read_text(), f"{command}: not the command .ci/run runs"
            continue
        _run_piece(command, piece, workdir, tmp_path, monkeypatch)


def _run_piece(command: Command, piece: str, workdir: Path, tmp_path: Path,
               monkeypatch) -> None:
    """Run (or parse) one command of a ``a && b`` line."""
    for variable, value in command.names.items():
        piece = piece.replace(f"${variable}", value)
    # NAME="$(python ...)": the command whose output the block reads later.
    substituted = re.fullmatch(r'[A-Z_]+="\$\((python .*)\)"', piece)
    piece = substituted.group(1) if substituted else piece
    # A loop, a heredoc or an unset variable: only a marked command may hold one.
    words = None if "$" in piece or piece.endswith(" ...") else shlex.split(piece)
    found = None if words is None else _package_command(words)
    if command.marker is not None:
        if found is not None:
            _parse_check(*found, tmp_path, monkeypatch)
        return
    assert words is not None, f"{command}: a shell construct a test cannot run; mark it"
    if found is not None:
        name, args = found
        launched = words[0] not in ("hf-induction", "python")
        if launched or name in ALREADY_RUN:
            _parse_check(name, args, tmp_path, monkeypatch)
            return
        if name in RUN_ONCE:
            ALREADY_RUN.add(name)
        monkeypatch.chdir(workdir)
        done = run_command([name, *args, *SMALL.get(name, [])])
        assert done.returncode == 0, f"{command}: {done.stderr.strip()[-2000:]}"
        return
    assert words[0] == "python", (
        f"{command}: {words[0]!r} is neither the package's command nor python; mark it "
        f"('# needs: {' | '.join(NEEDS)}' or '# long: why')")
    # The checkout's package, whatever an installed copy points at.
    done = subprocess.run([sys.executable, *words[1:]], cwd=workdir,
                          env={**env(), "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command}: {done.stderr.strip()[-2000:]}"
