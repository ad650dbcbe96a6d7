"""What every command line shares: one-line usage errors, help that shows each default, and
YAML recipes whose keys are the flags."""

from __future__ import annotations

import argparse
import math
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..tasks.limits import MAX_INT64, MAX_ROWS, ROWS_WHY


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Descriptions as written, and "(default: ...)" after every flag's help. A flag whose
    default is None says in its own help what it falls back to."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None:
            return action.help or ""
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


def read_recipe(path: Path) -> dict[str, Any]:
    """A YAML mapping from ``path``; ValueError naming the file (and, for bad YAML, the line and
    column) if it is not one."""
    from ..runner.sweep import read_yaml

    data = read_yaml(path, "a YAML mapping of flag: value, such as 'max_steps: 500'")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of flag: value, got {type(data).__name__}")
    return data


# -- argparse types: each checks one value at parse time, before anything is imported or written.

def ascii_only(text: str) -> str:
    """``text`` if it is ASCII, else ValueError: int() and float() read a full-width or
    Arabic-Indic digit as its ASCII one, and a number or name must be spelled as recorded."""
    text = str(text)
    if not text.isascii():
        raise ValueError(f"{text!r} is not ASCII")
    return text


def ascii_word(text: str) -> str:
    """An argparse type: ``text``, refused in one line if it is not ASCII (`ascii_only`)."""
    try:
        return ascii_only(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{e}; write it in ASCII") from None


def int_in(low: int, high: int, why: str):
    """An argparse type: an integer in low..high. The error names the value and the bound, and,
    above ``high``, ``why`` (what the bound follows from)."""
    def check(text: str) -> int:
        try:
            value = int(ascii_only(text))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected an integer in {low}..{high}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        if value > high:
            raise argparse.ArgumentTypeError(f"{value} exceeds {high} ({why})")
        return value

    check.__name__ = f"integer in {low}..{high}"
    return check


def ints_in(low: int, high: int, why: str):
    """An argparse type: comma-separated integers, each in low..high (as `int_in`)."""
    one = int_in(low, high, why)

    def check(text: str) -> tuple[int, ...]:
        return tuple(one(x.strip()) for x in text.split(","))

    check.__name__ = f"comma-separated integers in {low}..{high}"
    return check


def distinct(parse):
    """An argparse type: ``parse``'s comma-separated values, refused if one comes twice (each
    value of a grid is one run; a repeat is a typing slip, not a second run)."""
    def check(text: str) -> tuple:
        values = parse(text)
        twice = list(dict.fromkeys(v for v in values if values.count(v) > 1))
        if twice:
            raise argparse.ArgumentTypeError(
                f"{text!r} gives {', '.join(f'{v:g}' for v in twice)} more than once")
        return values

    check.__name__ = parse.__name__
    return check


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


INT64 = "the results tables hold int64"
nonnegative_int = int_in(0, MAX_INT64, INT64)
# A size asked of a split (rows to train on, a batch): 0 is no size.
rows = int_in(1, MAX_ROWS, f"a split holds at most this many rows: {ROWS_WHY}")


def _finite_number(text: str, zero_allowed: bool) -> float:
    bound = ">= 0" if zero_allowed else "> 0"
    try:
        value = float(ascii_only(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number {bound}, got {text!r}") from None
    if not (math.isfinite(value) and (value >= 0 if zero_allowed else value > 0)):
        raise argparse.ArgumentTypeError(f"expected a finite number {bound}, got {text!r}")
    return value


def nonnegative_float(text: str) -> float:
    return _finite_number(text, zero_allowed=True)


def positive_finite(text: str) -> float:
    return _finite_number(text, zero_allowed=False)


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
