"""What every command line shares: one-line usage errors, help that shows each default, and
YAML recipes whose keys are the flags."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

# The value types (each an argparse type whose error states its bound) belong to the
# settings, which declare them; the commands take them from there.
from ..errors import first_line, once
from ..settings.values import (
    INT64,
    ascii_only,
    ascii_word,
    distinct,
    int_in,
    ints_in,
    nonnegative_float,
    nonnegative_int,
    output_folder,
    positive_finite,
    repo_id,
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
    is allowed (exit 2, nothing written), with `HelpFormatter` by default; ``flags`` lists the
    options added to it or to its groups (`add_argument`'s actions), which a recipe's keys
    are read against."""

    def __init__(self, *args, **kwargs) -> None:
        self.flags: list[argparse.Action] = []
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.flags.append(action)
        return action

    def add_argument_group(self, *args, **kwargs):
        group = super().add_argument_group(*args, **kwargs)
        add = group.add_argument

        def add_argument(*args, **kwargs) -> argparse.Action:
            action = add(*args, **kwargs)
            self.flags.append(action)
            return action

        group.add_argument = add_argument
        return group

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _options(parser: Parser, actions=None) -> dict[str, argparse.Action]:
    """Recipe key -> action: each flag's dest, with '_' or '-' alike."""
    keys = {}
    for action in actions if actions is not None else parser.flags:
        if not action.option_strings or action.dest == "help":
            continue
        # Its dest, and each of its spellings (a flag's former name too), '_' or '-' alike; a
        # --x/--no-x switch by its dest alone (x: true or false).
        spellings = () if isinstance(action, argparse.BooleanOptionalAction) else (
            o.lstrip("-") for o in action.option_strings)
        for key in (action.dest, *spellings):
            keys[key] = keys[key.replace("_", "-")] = keys[key.replace("-", "_")] = action
    return keys


def _tokens(action: argparse.Action, value: Any) -> list[str]:
    """The command-line tokens that give ``action`` the recipe's ``value``."""
    flag = max(action.option_strings, key=len)
    if action.nargs == 0:
        # A switch: --flag (store_true), or --flag / --no-flag (BooleanOptionalAction).
        if not isinstance(value, bool):
            raise ValueError(f"{flag} takes true or false, got {value!r}")
        if action.const is True:
            return [flag] if value else []
        return [min(action.option_strings, key=len) if value else flag]
    if value is None:
        return []
    items = list(value) if isinstance(value, list | tuple) else [value]
    if action.nargs in ("+", "*") or isinstance(action.nargs, int):
        return [flag, *map(str, items)]
    # A single-valued flag given a list in YAML: its comma-separated form (--lrs 1e-3,1e-4).
    return [flag, ",".join(map(str, items))]


def recipe_tokens(parser: Parser, recipe: Mapping[str, Any], where: str,
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
    from ..tasks.group_names import registered_from

    return registered_from(getattr(args, "groups", None))
