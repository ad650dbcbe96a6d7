"""The command lines, one module each, and ``hf-induction COMMAND ...`` over all of them.

``scripts/*.py`` and the console entry point run the same ``main``; a command's module is
imported only when it is asked for.
"""

from __future__ import annotations

import importlib
import sys

# command name -> (module, one line of what it does)
COMMANDS: dict[str, tuple[str, str]] = {
    "nstar": ("nstar", "find N* (and kappa) for cells and models; resumable, multi-process"),
    "kappa": ("kappa", "the kappa table of a results folder"),
    "report": ("report", "tables and figures of a results folder (docs/results.md)"),
    "heads": ("heads", "attention-head scores and patching of kept checkpoints or any model"),
    "build-datasets": ("build_datasets", "materialise task configs as a Hub dataset folder"),
    "push": ("push", "push a results folder to a Hub dataset repo"),
    "leaderboard": ("leaderboard", "the kappa leaderboard of results folders or Hub datasets"),
    "space": ("space", "a leaderboard Space folder to upload, for results folders or Hub ids"),
    "estimate-grid": ("estimate_grid", "device hours of a sweep at the paper's sizes"),
    "check": ("check", "verify a results folder without training (--repair mends it)"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()]
    return ("usage: hf-induction COMMAND [ARGS ...]   (hf-induction COMMAND --help; "
            "hf-induction --version)\n\n"
            "commands:\n" + "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), end="")
        return 0 if argv else 2
    if argv[0] == "--version":
        from .. import __version__

        print(f"hf-induction {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"hf-induction: error: unknown command {name!r}; allowed: "
              f"{', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"{__name__}.{COMMANDS[name][0]}")
    return module.main(rest)
