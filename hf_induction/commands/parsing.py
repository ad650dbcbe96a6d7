"""What every command line shares: one-line usage errors, help that shows each default, and
YAML recipes whose keys are the flags."""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

# The value types (each an argparse type whose error states its bound) belong to the
# settings, which declare them; the commands take them from there.
from ..settings.values import (
    INT64,
    ascii_only,
    ascii_word,
    distinct,
    int_in,
    ints_in,
    nonnegative_float,
    nonnegative_int,
    positive_finite,
    rows,
)

__all__ = ["INT64", "HelpFormatter", "Parser", "ascii_only", "ascii_word", "distinct",
           "first_line", "int_in", "ints_in", "nonnegative_float", "nonnegative_int", "once",
           "output_folder", "positive_finite", "prog", "push_outcome", "read_recipe",
           "recipe_tokens", "repo_id", "rows"]


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Descriptions as written, and "(default: ...)" after every flag's help. A flag whose
    default is None says in its own help what it falls back to."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None:
            return action.help or ""
        if isinstance(action, argparse.BooleanOptionalAction):
            # Python before 3.13 appends its own "(default: True)" to the help: said once, as
            # the flag's two forms read, on or off.
            text = (action.help or "").replace(" (default: %(default)s)", "")
            return f"{text} (default: {'on' if action.default else 'off'})"
        return super()._get_help_string(action)


def prog(module: str) -> str:
    """How a user calls the command in ``module`` (``hf_induction.commands.build_datasets`` ->
    ``hf-induction build-datasets``): the console script's name, as every usage line says,
    also when a checkout's ``scripts/*.py`` shim runs it."""
    from . import COMMANDS

    leaf = module.rsplit(".", 1)[-1]
    name = next(name for name, (mod, _) in COMMANDS.items() if mod == leaf)
    return f"hf-induction {name}"


class Parser(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` whose errors are one line naming what was wrong and what
    is allowed (exit 2, nothing written), with `HelpFormatter` by default."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _options(parser: argparse.ArgumentParser, actions=None) -> dict[str, argparse.Action]:
    """Recipe key -> action: each flag's dest, with '_' or '-' alike."""
    keys = {}
    for action in actions if actions is not None else parser._actions:
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        keys[action.dest] = action
        keys[action.dest.replace("_", "-")] = action
    return keys


def _tokens(action: argparse.Action, value: Any) -> list[str]:
    """The command-line tokens that give ``action`` the recipe's ``value``."""
    flag = max(action.option_strings, key=len)
    if isinstance(action, argparse._StoreTrueAction):
        if not isinstance(value, bool):
            raise ValueError(f"{flag} takes true or false, got {value!r}")
        return [flag] if value else []
    if value is None:
        return []
    items = list(value) if isinstance(value, list | tuple) else [value]
    if action.nargs in ("+", "*") or isinstance(action.nargs, int):
        return [flag, *map(str, items)]
    # A single-valued flag given a list in YAML: its comma-separated form (--lrs 1e-3,1e-4).
    return [flag, ",".join(map(str, items))]


def recipe_tokens(parser: argparse.ArgumentParser, recipe: Mapping[str, Any], where: str,
                  actions=None) -> list[str]:
    """A recipe (YAML mapping: flag -> value) as command-line tokens, for ``parser`` to check
    like any flag. Tokens placed before the command line's own let the command line override
    the recipe. ``actions`` limits the keys allowed; an unknown key is one clear error."""
    allowed = _options(parser, actions)
    unknown = sorted(k for k in recipe if k not in allowed)
    if unknown:
        names = sorted({a.dest for a in allowed.values()})
        raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: "
                         f"{', '.join(names)}")
    tokens: list[str] = []
    for key, value in recipe.items():
        try:
            tokens += _tokens(allowed[key], value)
        except ValueError as e:
            raise ValueError(f"{where}: {key}: {e}") from None
    return tokens


def first_line(error: BaseException) -> str:
    """An error's first line, for a one-line message; its type where it says nothing."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def push_outcome(prog: str, push: Callable[[], Any], kept: str) -> str | None:
    """Run ``push()``, a Hub push that returns a `PushResult`: "commit ABC" or "unchanged, no
    commit"; on a HubError, print ``PROG: error: ... (KEPT)`` and return None (exit 1)."""
    from ..hub import HubError

    try:
        pushed = push()
    except HubError as e:
        print(f"{prog}: error: {e} ({kept})", file=sys.stderr)
        return None
    return f"commit {pushed.commit}" if pushed.changed else "unchanged, no commit"


def read_recipe(path: Path) -> dict[str, Any]:
    """A YAML mapping from ``path``; ValueError naming the file (and, for bad YAML, the line and
    column) if it is not one."""
    from ..yaml_files import read_yaml

    data = read_yaml(path, "a YAML mapping of flag: value, such as 'max_steps: 500'")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of flag: value, got {type(data).__name__}")
    return data


def once(flag: str, names, keys=None) -> None:
    """ValueError, one line, if two of ``names`` (or, when given, their ``keys``: the cells
    they parse to) are the same: ``acot_L5`` and ``acot_L5_m5`` name one cell."""
    keys = list(names) if keys is None else list(keys)
    for i, key in enumerate(keys):
        if key in keys[:i]:
            first = list(names)[keys.index(key)]
            again = list(names)[i]
            same = "twice" if first == again else f"twice ({first} and {again} are one)"
            raise ValueError(f"{flag} names {again} {same}; give each once")


def output_folder(text: str) -> Path:
    """A folder to write into, checked by really writing: the missing folders are made, a probe
    file is written and removed, and the folders this check made are removed again, so that a
    folder that cannot be created or written is one line before anything is computed (a
    permission bit says nothing of /proc or a read-only mount), and a later usage error leaves
    nothing behind."""
    if not str(text).strip():
        # Path("") is the current folder: a results folder written where the command was run.
        raise argparse.ArgumentTypeError("expected a folder, got an empty name")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a file, not a folder")
    # Two processes of one launch check the same new folder at once: one may remove a folder
    # the other has just written its probe into. A probe that finds its folder gone retries.
    for _ in range(3):
        try:
            _write_probe(path)
            return path
        except FileNotFoundError as e:
            error: OSError = e
        except OSError as e:
            error = e
            break
    where = f" ({error.filename})" if error.filename and error.filename != str(path) else ""
    raise argparse.ArgumentTypeError(
        f"{path}: cannot write there ({error.strerror or first_line(error)}{where})")


def _write_probe(path: Path) -> None:
    """Create ``path`` (and its missing parents), write and remove a probe file in it, and
    remove the folders made here; OSError if any step fails."""
    missing = []
    folder = path
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    made = []
    try:
        for folder in reversed(missing):
            folder.mkdir(exist_ok=True)
            made.append(folder)
        probe = path / f".write-probe-{os.getpid()}-{uuid.uuid4().hex}"
        probe.write_bytes(b"")
        probe.unlink()
    finally:
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                # Another process has written into it since: it is theirs now.
                pass


def repo_id(text: str) -> str:
    """A Hub repo id as `huggingface_hub` validates it (ORG/NAME)."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(text)
    except HFValidationError as e:
        first = str(e).strip().splitlines()[0]
        raise argparse.ArgumentTypeError(f"{text!r} is not a Hub repo id: {first}") from None
    if "/" not in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a Hub repo id: expected ORG/NAME")
    return text


def add_groups_flag(parser: argparse.ArgumentParser) -> None:
    """``--groups FILE``: groups from permutation generators that the group family's configs
    may then name (``acot_L5_M11``)."""
    parser.add_argument("--groups", type=Path, metavar="FILE", default=None,
                        help="a YAML file of group name: [generators] (each a permutation of "
                        "0..d-1 in one-line notation) whose names the group family's configs "
                        "may end with, e.g. acot_L5_M11 (default: none)")


def register_groups(args: argparse.Namespace) -> dict[str, Any]:
    """Register the groups of ``--groups`` (ValueError in one line naming the file and what is
    wrong); the groups registered, to record beside the results."""
    from ..tasks.group_names import register_groups_file, registered

    if getattr(args, "groups", None) is None:
        return {}
    names = register_groups_file(args.groups)
    return {name: gens for name, gens in registered().items() if name in names}
